import { respond, singleParams, STYLESHEET_PATH, type Exchange } from '../../core/http/http.js';
import { escapeHtml } from '../../../output/markup.js';
import { paramsObject, type RecordedRequest } from '../../core/http/request-log.js';
import { createHash } from 'node:crypto';
import { renderSequenceSvg } from '../../../output/sequence-svg.js';
import { flowDiagram } from './flow-diagram.js';

/**
 * With JavaScript the page listens to /_mock/events and fetches itself again when a request is logged,
 * then swaps in its new <main> (the server's HTML, escaped there); without it, a meta refresh.
 */
const LIVE_SCRIPT = `(() => {
  const events = new EventSource('/_mock/events');
  let busy = false;
  let again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const answer = await fetch('/_mock/', { cache: 'no-store' });
      if (!answer.ok) return;
      const next = new DOMParser().parseFromString(await answer.text(), 'text/html').querySelector('main');
      if (next) document.querySelector('main').replaceWith(next);
    } catch {
      // the mock has stopped: the page keeps what it last showed
    } finally {
      busy = false;
      if (again) { again = false; void refresh(); }
    }
  }
  events.addEventListener('change', () => void refresh());
})();`;
const SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(LIVE_SCRIPT).digest('base64')}'`;

const MAX_FLOWS = 50;
const MAX_OTHERS = 30;
const REFRESH_SECONDS = 5;

interface Flow {
  /** 1 for the first flow in the log, 2 for the next: the order they started in, whatever is shown. */
  number: number;
  start: RecordedRequest;
  steps: RecordedRequest[];
}

/** A request with its number in its list: in the order the requests came, from 1. */
interface NumberedRequest {
  number: number;
  request: RecordedRequest;
}

/** The authorization requests of the log, newest first, each with the later requests that continued it. */
export function recentFlows(entries: readonly RecordedRequest[]): { flows: Flow[]; others: NumberedRequest[] } {
  const byId = new Map<number, Flow>();
  const others: NumberedRequest[] = [];
  for (const e of entries) {
    if (e.endpoint === 'authorize') byId.set(e.id, { number: byId.size + 1, start: e, steps: [e] });
    else if (e.flow !== undefined && byId.has(e.flow)) byId.get(e.flow)!.steps.push(e);
    else others.push({ number: others.length + 1, request: e });
  }
  return { flows: [...byId.values()].reverse().slice(0, MAX_FLOWS), others: others.reverse().slice(0, MAX_OTHERS) };
}

/**
 * GET /_mock/: the recent flows as a timeline, newest first: each authorization request with its
 * parameters, then its login, consent, code and token request with their outcomes. Server-rendered,
 * everything escaped (the parameters come from clients); it updates itself as requests arrive (one
 * script, allowed by its hash; a meta refresh without JavaScript), which `?refresh=off` stops.
 */
export function sendFlowsPage(ex: Exchange): void {
  const paused = singleParams(ex.query).values.get('refresh') === 'off';
  const { flows, others } = recentFlows(ex.state.requests.entries());
  const issuerHost = hostOf(ex.state.issuer);
  const sections = flows.map((f) => flowSection(f, issuerHost)).join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${paused ? '' : `<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>`}
<title>Recent flows · oauthctl mock</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body class="wide">
<main>
<h1>Recent flows</h1>
<p class="muted">${escapeHtml(ex.state.issuer)}: the last ${MAX_FLOWS} authorization requests, newest first, each with the requests that continued it.
${paused ? `Updates are paused. <a href="/_mock/">Resume updates</a>` : `This page updates as requests arrive (every ${REFRESH_SECONDS} seconds without JavaScript). <a href="/_mock/?refresh=off">Pause updates</a>`}</p>
${flows.length === 0 ? '<p>No authorization request yet.</p>' : sections}
<h2 id="others">Other requests</h2>
${others.length === 0 ? '<p>None yet.</p>' : stepsTable(others, 'Other requests, newest first', 'others')}
</main>
<p class="footer">oauthctl mock authorization server, for tests only</p>
${paused ? '' : `<script>${LIVE_SCRIPT}</script>`}
</body>
</html>
`;
  ex.log.outcome = 'ok';
  respond(
    ex.res,
    200,
    {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(html),
      'Content-Security-Policy': `default-src 'none'; style-src 'self'; img-src 'self'; script-src ${SCRIPT_SOURCE}; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    },
    html,
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function flowSection(flow: Flow, issuerHost: string): string {
  const { number, start, steps } = flow;
  const params = paramsObject(start.query);
  const client = typeof params.client_id === 'string' ? params.client_id : (start.clientId ?? 'unknown client');
  const last = steps[steps.length - 1]!;
  const id = `flow-${number}`;
  const rows = Object.entries(params)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(Array.isArray(v) ? v.join(', ') : v)}</dd>`)
    .join('');
  return `<section class="flow" aria-labelledby="${id}">
<h2 id="${id}">Flow ${number}: ${escapeHtml(client)}, ${escapeHtml(last.outcome)}</h2>
<p class="muted">Started <time datetime="${new Date(start.time).toISOString()}">${time(start.time)}</time>, ${steps.length} ${steps.length === 1 ? 'step' : 'steps'}.</p>
<h3 id="${id}-params">Authorization request</h3>
${rows ? `<dl class="params">${rows}</dl>` : '<p>No parameters.</p>'}
<div class="diagram">${renderSequenceSvg(flowDiagram(steps, issuerHost), { title: `Sequence diagram of flow ${number}` })}</div>
${stepsTable(
  steps.map((request, i) => ({ number: i + 1, request })),
  `Steps of flow ${number}`,
  id,
)}
</section>`;
}

function stepsTable(steps: readonly NumberedRequest[], caption: string, id: string): string {
  const rows = steps.map(({ number, request: s }) => {
    const form =
      s.form === undefined
        ? ''
        : Object.entries(paramsObject(s.form))
            .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : v}`)
            .join(' ');
    const error = s.error === undefined ? '' : `${s.error}${s.errorDescription ? `: ${s.errorDescription}` : ''}`;
    const details = [s.clientId !== undefined ? `client ${s.clientId}` : '', form, error, s.fault !== undefined ? `queued fault ${s.fault}` : ''].filter(Boolean).join('; ');
    return `<tr id="step-${s.id}"><td>${number}</td><td><time datetime="${new Date(s.time).toISOString()}">${time(s.time)}</time></td><td>${escapeHtml(s.method)} ${escapeHtml(s.path)}</td><td>${s.status}</td><td>${escapeHtml(s.outcome)}</td><td class="details">${escapeHtml(details)}</td></tr>`;
  });
  return `<table id="${id}-steps">
<caption>${escapeHtml(caption)}</caption>
<thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Details</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
}

function time(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}
