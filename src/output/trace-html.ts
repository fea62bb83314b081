import { createHash } from 'node:crypto';
import { requestParams, type TraceEntry, type TraceFile } from './har-read.js';
import { scanJwts } from './jwt-scan.js';
import { describeMessage, type SequenceDiagram } from './sequence-diagram.js';
import { escapeHtml, escapeMarkup, escapeMarkupBlock } from './markup.js';
import { renderSequenceSvg } from './sequence-svg.js';
import { drawnEntries, entryFailed, exchangeNumbers, traceDiagram } from './trace-diagram.js';
import { STEP_NOTES } from './step-notes.js';
import { LISTENER_HEADER } from './har.js';

/** Colours for both schemes, the diagram's classes, and print (every exchange shown, no links underlined). */
const STYLE = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#5f6368;--err:#b3261e;--line:#d0d4da;--card:#f6f8fa;--accent:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#15181c;--muted:#9aa0a6;--err:#f2b8b5;--line:#3a3f45;--card:#1e2227;--accent:#a8c7fa}}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,sans-serif}
main{max-width:1200px;margin:0 auto;padding:1rem 1.25rem 3rem}
h1{font-size:1.4rem;margin:.5rem 0}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem;margin:1rem 0 .25rem}
.muted{color:var(--muted)}.failed{color:var(--err)}
.diagram{overflow-x:auto;border:1px solid var(--line);border-radius:8px;padding:.5rem;background:var(--card)}
.seq{display:block;color:var(--fg)}.seq a{color:inherit;cursor:pointer}.seq a:hover .seq-msg,.seq a:focus .seq-msg{color:var(--accent)}
.seq a:focus{outline:2px solid var(--accent)}.seq .seq-failed{color:var(--err)}.seq .seq-params,.seq .seq-host{fill:var(--muted)}
details.exchange{border:1px solid var(--line);border-radius:8px;margin:.5rem 0;padding:.25rem .75rem;background:var(--card)}
details.exchange.failed{border-color:var(--err)}summary{cursor:pointer;font-weight:600}
.exchange-body:target{outline:2px solid var(--accent);outline-offset:4px}
table{border-collapse:collapse;width:100%;font-size:.875rem}th,td{text-align:left;vertical-align:top;padding:.15rem .5rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
th{width:14rem;font-weight:600}pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8125rem;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.5rem;max-height:40rem;overflow:auto}
code{overflow-wrap:anywhere}a{color:var(--accent)}
.server-page{display:block;width:100%;height:18rem;resize:vertical;box-sizing:border-box;border:1px solid var(--line);border-radius:6px;background:#fff;color-scheme:light}details.source>summary{font-weight:400}
.why{margin:.25rem 0;color:var(--muted)}.edited{border-left:3px solid var(--accent);padding-left:.5rem}details.probe{margin:.25rem 0}details.probe.failed>summary{color:var(--err)}
#step form{border:2px solid var(--accent);border-radius:8px;padding:.5rem .75rem;margin:1rem 0;background:var(--card)}#step th{width:auto}#step input:not([type=checkbox]){font:inherit;width:100%;box-sizing:border-box;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:4px}#step label{white-space:nowrap}#step select{font:inherit}#step button{font:inherit;margin:.5rem .5rem 0 0;padding:.25rem 1rem}.status{font-weight:600}
@media print{body{background:#fff;color:#000}.diagram{overflow:visible;border:0}.seq{max-width:100%;height:auto}details.exchange{break-inside:avoid}details::details-content{content-visibility:visible;display:block}pre{max-height:none}a{color:inherit;text-decoration:none}}`;

/** The CSP source that allows the page's one stylesheet, by its hash. */
export const TRACE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** The CSP of the page: nothing loads, nothing runs; the one inline stylesheet is allowed by its hash. */
export const TRACE_PAGE_CSP = `default-src 'none'; style-src ${TRACE_STYLE_SOURCE}; img-src 'none'; base-uri 'none'; form-action 'none'`;

/** An audit probe on the page: its exchanges are those tagged with its id. */
export interface TraceGroup {
  id: string;
  title: string;
  category: string;
  status?: string | undefined;
  detail?: string | undefined;
}

/** `oauthctl trace FILE --html OUT`: one self-contained page, the diagram on top, every exchange below it. */
export function renderTraceHtml(file: TraceFile, options: { title: string }): string {
  return renderTracePage({ title: options.title, csp: TRACE_PAGE_CSP, body: `<main>\n<h1>${escapeMarkup(options.title)}</h1>\n${renderTraceFlow(file)}\n</main>` });
}

/** The document around a body: the one stylesheet, the CSP given, and scripts allowed by that CSP. */
export function renderTracePage(options: { title: string; csp: string; body: string; script?: string; referrer?: 'no-referrer' | 'same-origin' }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${options.csp}">
<meta name="referrer" content="${options.referrer ?? 'no-referrer'}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
${options.body}
${options.script !== undefined ? `<script>${options.script}</script>` : ''}
</body>
</html>
`;
}

/** The flow: what failed, the diagram, the audit's probes when there are, then every exchange. The live page redraws this part. */
export function renderTraceFlow(file: TraceFile, options: { groups?: readonly TraceGroup[] | undefined; jwts?: readonly (readonly DecodedJwt[])[] | undefined } = {}): string {
  const diagram = traceDiagram(file);
  const drawn = drawnEntries(file);
  const firstFailure = drawn.find(({ entry }) => entryFailed(entry));
  const summary = firstFailure
    ? `<p class="failed" role="alert"><strong>The flow failed</strong> at <a href="#x${firstFailure.number}">exchange ${firstFailure.number}, ${escapeMarkup(firstFailure.entry.step)}</a>: ${escapeMarkup(failureText(firstFailure.entry))}</p>`
    : `<p>No exchange failed.</p>`;
  const notes = [
    file.redacted === false ? '<p class="failed"><strong>This trace holds secrets</strong> (recorded with --show-secrets): do not share it.</p>' : '',
    file.omitted > 0 ? `<p class="muted">${file.omitted} more exchanges are in the file and left out here.</p>` : '',
  ].join('');
  // A redirect the headless agent delivered and the listener received is one exchange, drawn once.
  const merged = file.entries.length - drawn.length;
  const once = merged > 0 ? ` (a redirect that both the user agent and oauthctl's listener recorded is shown once)` : '';
  return `<p class="muted">${drawn.length} HTTP exchanges${once}. Each arrow opens its request and response below.</p>
${summary}${notes}
<div class="diagram">${renderSequenceSvg(diagram, { title: 'Sequence diagram of the flow', id: 'diagram' })}</div>
${probesSection(file, options.groups)}
<h2>Exchanges</h2>
${drawn.map(({ entry, index, number }) => exchangeSection(entry, number, diagram, options.jwts?.[index])).join('\n')}`;
}

/** An audit's exchanges by probe, the probes by category, each listing its exchanges (links to them below). */
function probesSection(file: TraceFile, given: readonly TraceGroup[] | undefined): string {
  const ids = [...new Set(file.entries.flatMap((e) => (e.probe !== undefined ? [e.probe] : [])))];
  const groups: readonly TraceGroup[] = given ?? ids.map((id) => ({ id, title: id, category: 'probes' }));
  if (groups.length === 0) return '';
  const categories = [...new Set(groups.map((g) => g.category))];
  const numbers = exchangeNumbers(file);
  const exchangesOf = (id: string) =>
    file.entries.flatMap((e, i) => {
      const n = numbers.get(i) ?? 0;
      return e.probe === id ? [`<li><a href="#x${n}">${n}. ${escapeMarkup(`${e.method} ${e.url}`)}</a>${e.status ? `, ${e.status}` : ''}</li>`] : [];
    });
  return `<h2>Probes</h2>
${categories
  .map((category) => {
    const rows = groups
      .filter((g) => g.category === category)
      .map((g) => {
        const list = exchangesOf(g.id);
        const status = g.status ?? (given ? 'running' : '');
        return `<details class="probe${g.status === 'fail' ? ' failed' : ''}" id="p-${escapeMarkup(g.id)}"><summary>${escapeMarkup(status)} ${escapeMarkup(g.id)}: ${escapeMarkup(g.title)} <span class="muted">(${list.length} exchanges)</span></summary>${g.detail ? `<p>${escapeMarkup(g.detail)}</p>` : ''}${list.length ? `<ol>${list.join('')}</ol>` : ''}</details>`;
      })
      .join('\n');
    return `<h3>${escapeMarkup(category)}</h3>\n${rows}`;
  })
  .join('\n')}`;
}

function failureText(e: TraceEntry): string {
  if (e.status === 0) return e.error ?? 'no response';
  const params = e.step === 'callback' ? requestParams(e) : undefined;
  const error = params?.get('error') ?? /"error"\s*:\s*"([^"]{0,200})"/.exec(e.responseBody)?.[1];
  return `HTTP ${e.status}${error ? `, ${error}` : ''}${byListener(e) ? ` from oauthctl's redirect listener, not the server` : ''}`;
}

/** An answer of oauthctl's own redirect listener (listener.ts marks them): never to be read as the server's. */
function byListener(e: TraceEntry): boolean {
  return e.actor === 'listener' || e.responseHeaders.some((h) => h.name.toLowerCase() === LISTENER_HEADER);
}

function exchangeSection(e: TraceEntry, number: number, diagram: SequenceDiagram, jwts: readonly DecodedJwt[] | undefined): string {
  const ref = `x${number}`;
  const at = diagram.messages.findIndex((m) => m.ref === ref);
  const title = at >= 0 ? describeMessage(diagram, diagram.messages[at]!, at).replace(/^\d+\. /, '') : `${e.method} ${e.url}`;
  const failed = entryFailed(e);
  const note = STEP_NOTES[e.step];
  const edited = e.edited?.length ? `<p class="edited"><strong>Changed by you before it was sent (--step):</strong> ${escapeMarkup(e.edited.join('; '))}</p>` : '';
  return `<details class="exchange${failed ? ' failed' : ''}" id="d-${ref}"${failed ? ' open' : ''}>
<summary>${number}. ${failed ? '✗ ' : ''}${e.edited?.length ? '✎ ' : ''}${escapeMarkup(title)}${e.handoff ? '' : `, ${e.status === 0 ? 'no response' : e.status}`} <span class="muted">(${escapeMarkup(e.actor)}, ${escapeMarkup(e.step)}${e.time >= 0 ? `, ${Math.round(e.time)} ms` : ''})</span></summary>
<div class="exchange-body" id="${ref}">
${note ? `<p class="why">${escapeMarkup(note)}</p>` : ''}${edited}${failed ? `<p class="failed"><strong>Failed here:</strong> ${escapeMarkup(failureText(e))}</p>` : ''}
<h3>Request</h3>
<p><code>${escapeMarkup(e.method)} ${escapeMarkup(e.url)}</code></p>
${table(
  'Request headers',
  e.requestHeaders.map((h) => [h.name, h.value]),
)}
${paramsTable(e)}
${e.requestBody !== undefined ? body('Request body', e.requestBody) : ''}
<h3>Response</h3>
<p>${e.handoff ? 'Sent to the user agent: the answer went to the browser.' : e.status === 0 ? `No response: ${escapeMarkup(e.error ?? '')}` : `HTTP ${e.status}${byListener(e) ? `, answered by oauthctl's redirect listener` : ''}`}</p>
${table(
  'Response headers',
  e.responseHeaders.map((h) => [h.name, h.value]),
)}
${responseBody(e)}
${jwtSection(jwts ?? decodeJwts(e))}
</div>
</details>`;
}

function table(caption: string, rows: [string, string][]): string {
  if (rows.length === 0) return '';
  return `<table><caption class="muted">${escapeMarkup(caption)}</caption><tbody>${rows.map(([k, v]) => `<tr><th scope="row">${escapeMarkup(k)}</th><td>${escapeMarkup(v)}</td></tr>`).join('')}</tbody></table>`;
}

function paramsTable(e: TraceEntry): string {
  return table('Parameters (query, fragment and form)', [...requestParams(e)]);
}

/**
 * The CSP the server's page is shown under, first in its document: nothing it names is fetched (no
 * script, image, stylesheet, font or frame), its own inline styles apply. The frame's `sandbox` with no
 * keyword runs no script, submits no form, opens no window and does not follow a refresh (HTML Living
 * Standard 7.1.5 sandboxing flags); the page's own CSP blocks any navigation of the frame (frame-src).
 */
const SERVER_PAGE_GUARD = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">`;

/** A response body: an HTML page drawn (in a sandboxed frame, nothing loaded or run) with its source a click away; anything else as text. */
function responseBody(e: TraceEntry): string {
  if (e.responseBody === '') return '';
  const type = e.responseMimeType || (e.responseHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '');
  if (!/^\s*(text\/html|application\/xhtml\+xml)\b/i.test(type)) return body('Response body', e.responseBody);
  return `<h4 class="muted">Response body: the server's page, shown without its scripts, images or styles from elsewhere</h4>
<iframe class="server-page" sandbox="" referrerpolicy="no-referrer" title="The page the server answered with" srcdoc="${escapeHtml(SERVER_PAGE_GUARD + e.responseBody)}"></iframe>
<details class="source"><summary>Source of the page</summary><pre>${escapeMarkupBlock(e.responseBody)}</pre></details>`;
}

function body(caption: string, text: string): string {
  return `<h4 class="muted">${escapeMarkup(caption)}</h4><pre>${escapeMarkupBlock(pretty(text))}</pre>`;
}

/** JSON bodies indented; anything else (or JSON too deep to indent) as it came. */
function pretty(text: string): string {
  if (!/^\s*[{[]/.test(text) || text.length > 64 * 1024) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A JWT's header and claims, each as indented JSON text: never its signature. */
export interface DecodedJwt {
  header: string;
  payload: string;
}

/**
 * Every JWT in the exchange (tokens, ID tokens, DPoP proofs, assertions), decoded. The --ui page
 * decodes them before the exchange is redacted (a token's claims without its signature let no one
 * use it), so that a redacted ID token can still be read there.
 */
export function decodeJwts(e: TraceEntry): DecodedJwt[] {
  const haystack = [e.url, ...e.requestHeaders.map((h) => h.value), e.requestBody ?? '', ...e.responseHeaders.map((h) => h.value), e.responseBody].join('\n');
  const found = new Set<string>();
  // Linear in the text whatever it holds (a hostile HAR's bodies): see jwt-scan.ts.
  for (const jwt of scanJwts(haystack).jwts) {
    if (found.size >= 10) break;
    found.add(`${jwt.header}.${jwt.payload}`);
  }
  return [...found].flatMap((jwt) => {
    const [header, payload] = jwt.split('.').map(decodePart);
    return header === undefined || payload === undefined ? [] : [{ header, payload }];
  });
}

function jwtSection(decoded: readonly DecodedJwt[]): string {
  return decoded.length === 0 ? '' : `<h3>Decoded JWTs</h3>${decoded.map(({ header, payload }) => `<pre>${escapeMarkupBlock(`${header}\n${payload}`)}</pre>${jwtTimes(payload)}`).join('')}`;
}

function decodePart(part: string | undefined): string | undefined {
  if (part === undefined) return undefined;
  try {
    return JSON.stringify(JSON.parse(Buffer.from(part, 'base64url').toString('utf8')), null, 2);
  } catch {
    return undefined;
  }
}

const TIME_CLAIMS = ['iat', 'nbf', 'auth_time', 'exp'] as const;

/** The time claims of a JWT (RFC 7519 section 4.1.4 to 4.1.6) as dates, with the lifetime from iat to exp. */
function jwtTimes(payload: string): string {
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return '';
  }
  const times = TIME_CLAIMS.flatMap((name) => {
    const value = claims[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > 8.64e12) return [];
    return [`${name} ${new Date(value * 1000).toISOString().replace('.000', '')}`];
  });
  if (times.length === 0) return '';
  const { iat, exp } = claims;
  const lifetime = typeof iat === 'number' && typeof exp === 'number' ? `, valid for ${Math.round(exp - iat)} s` : '';
  return `<p class="jwt-times">${escapeMarkup(times.join(' · ') + lifetime)}</p>`;
}
