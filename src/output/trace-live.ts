import { createHash } from 'node:crypto';
import { escapeMarkup } from './markup.js';
import type { HeldRequest } from './step.js';
import { renderTraceFlow, renderTracePage, TRACE_STYLE_SOURCE, type DecodedJwt, type TraceGroup } from './trace-html.js';
import type { TraceFile } from './har-read.js';

/**
 * The `--ui` page: the trace page (trace-html.ts) fed live. The server renders the whole state on each
 * load, so a reload without JavaScript shows what is recorded; with it, one small script listens to
 * the server's events and redraws the flow from `state` (HTML the server rendered and escaped).
 */
const LIVE_SCRIPT = `(() => {
  const base = location.pathname.replace(/[^/]*$/, '');
  const step = document.getElementById('step');
  let held = step.dataset.held;
  let busy = false;
  let again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const answer = await fetch(base + 'state', { cache: 'no-store' });
      if (!answer.ok) return;
      const state = await answer.json();
      const flow = document.getElementById('flow');
      const open = new Set([...flow.querySelectorAll('details[open]')].map((d) => d.id));
      flow.innerHTML = state.flow;
      for (const d of flow.querySelectorAll('details')) if (open.has(d.id)) d.open = true;
      document.getElementById('status').textContent = state.status;
      if (state.held !== held) { step.innerHTML = state.step; held = state.held; step.dataset.held = held; }
    } catch {
      // the command has ended and its server with it: the page keeps what it last drew
    } finally {
      busy = false;
      if (again) { again = false; void refresh(); }
    }
  }
  const events = new EventSource(base + 'events');
  events.addEventListener('change', () => void refresh());
  events.addEventListener('end', () => { void refresh(); events.close(); });
  events.onerror = () => { if (events.readyState === EventSource.CLOSED) document.getElementById('status').textContent += ' (no longer connected)'; };
})();`;

const SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(LIVE_SCRIPT).digest('base64')}'`;

/** Same origin only: the script, its fetches and events, the step form; nothing else loads or runs. */
export const LIVE_PAGE_CSP = `default-src 'none'; style-src ${TRACE_STYLE_SOURCE}; script-src ${SCRIPT_SOURCE}; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'self'`;

export interface LiveState {
  title: string;
  file: TraceFile;
  groups?: readonly TraceGroup[] | undefined;
  /** The JWTs of each exchange, decoded before it was redacted. */
  jwts?: readonly (readonly DecodedJwt[])[] | undefined;
  /** The request held for the person (--step), with the form's CSRF token. */
  held?: { id: string; request: HeldRequest; csrf: string } | undefined;
  /** One line: running, waiting for you, finished, failed. */
  status: string;
}

/** The whole page, as a reload without JavaScript shows it. */
export function renderLivePage(state: LiveState): string {
  const body = `<main>
<h1>${escapeMarkup(state.title)}</h1>
<p><span class="status" id="status" role="status">${escapeMarkup(state.status)}</span> · <a href="trace.har" download="oauthctl-trace.har">Save the HAR</a></p>
<div id="step" data-held="${escapeMarkup(state.held?.id ?? '')}">${renderHeld(state.held)}</div>
<div id="flow">${renderLiveFlow(state)}</div>
</main>`;
  // same-origin: the step form's POST then carries the page's Origin (no-referrer would make it "null"); nothing leaves for another origin.
  return renderTracePage({ title: state.title, csp: LIVE_PAGE_CSP, body, script: LIVE_SCRIPT, referrer: 'same-origin' });
}

export function renderLiveFlow(state: Pick<LiveState, 'file' | 'groups' | 'jwts'>): string {
  return renderTraceFlow(state.file, { groups: state.groups, jwts: state.jwts });
}

const PLACES = ['query', 'form', 'header', 'body'] as const;

/** The held request as a form: each parameter editable (secrets read-only), a row to add one, Send / Skip / Abort. */
export function renderHeld(held: LiveState['held']): string {
  if (held === undefined) return '';
  const { request, csrf, id } = held;
  const rows = request.fields.map((f, i) => {
    const lock = f.secret ? ' readonly aria-readonly="true"' : '';
    return `<tr><td>${escapeMarkup(f.place)}<input type="hidden" name="p${i}" value="${escapeMarkup(f.place)}"></td><td><input name="n${i}" value="${escapeMarkup(f.name)}" aria-label="name of ${escapeMarkup(f.place)} parameter ${i + 1}"${lock}></td><td><input name="v${i}" value="${escapeMarkup(f.value)}" aria-label="${escapeMarkup(f.name)}"${lock}></td><td><label><input type="checkbox" name="d${i}" value="1"${f.secret ? ' disabled' : ''}> remove</label></td></tr>`;
  });
  const n = request.fields.length;
  const places = PLACES.map((p) => `<option>${p}</option>`).join('');
  rows.push(
    `<tr><td><select name="p${n}" aria-label="where the new parameter goes">${places}</select></td><td><input name="n${n}" aria-label="name of a new parameter"></td><td><input name="v${n}" aria-label="value of a new parameter"></td><td></td></tr>`,
  );
  return `<form method="post" action="step" aria-labelledby="held-title">
<h2 id="held-title">Waiting for you: ${escapeMarkup(request.title)}</h2>
${request.note !== undefined ? `<p class="failed" role="alert">${escapeMarkup(request.note)}</p>` : ''}
<p><code>${escapeMarkup(request.method)} ${escapeMarkup(request.url)}</code></p>
<p class="muted">Change a value, remove a parameter or add one, then Send: the request goes as you left it, and the trace marks your changes. Skip does not send it (the flow goes on as if no answer came, which usually ends it); Abort ends the command.</p>
<input type="hidden" name="csrf" value="${escapeMarkup(csrf)}"><input type="hidden" name="held" value="${escapeMarkup(id)}"><input type="hidden" name="count" value="${n + 1}">
<table><caption class="muted">Parameters of the request</caption><thead><tr><th scope="col">Where</th><th scope="col">Name</th><th scope="col">Value</th><th scope="col"></th></tr></thead><tbody>${rows.join('')}</tbody></table>
<button type="submit" name="action" value="send">Send</button><button type="submit" name="action" value="skip">Skip</button><button type="submit" name="action" value="abort">Abort</button>
</form>`;
}
