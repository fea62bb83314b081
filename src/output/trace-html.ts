import { createHash } from 'node:crypto';
import { requestParams, type TraceEntry, type TraceFile } from './har-read.js';
import { describeMessage, type SequenceDiagram } from './sequence-diagram.js';
import { escapeMarkup, escapeMarkupBlock } from './markup.js';
import { renderSequenceSvg } from './sequence-svg.js';
import { drawnEntries, entryFailed, traceDiagram } from './trace-diagram.js';

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
@media print{body{background:#fff;color:#000}.diagram{overflow:visible;border:0}.seq{max-width:100%;height:auto}details.exchange{break-inside:avoid}details::details-content{content-visibility:visible;display:block}pre{max-height:none}a{color:inherit;text-decoration:none}}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The CSP of the page: nothing loads, nothing runs; the one inline stylesheet is allowed by its hash. */
export const TRACE_PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'none'; base-uri 'none'; form-action 'none'`;

/** `oauthctl trace FILE --html OUT`: one self-contained page, the diagram on top, every exchange below it. */
export function renderTraceHtml(file: TraceFile, options: { title: string }): string {
  const diagram = traceDiagram(file);
  const drawn = drawnEntries(file);
  const firstFailure = drawn.find(({ entry }) => entryFailed(entry));
  const summary = firstFailure
    ? `<p class="failed" role="alert"><strong>The flow failed</strong> at <a href="#x${firstFailure.index + 1}">exchange ${firstFailure.index + 1}, ${escapeMarkup(firstFailure.entry.step)}</a>: ${escapeMarkup(failureText(firstFailure.entry))}</p>`
    : `<p>No exchange failed.</p>`;
  const notes = [
    file.redacted === false ? '<p class="failed"><strong>This trace holds secrets</strong> (recorded with --show-secrets): do not share it.</p>' : '',
    file.omitted > 0 ? `<p class="muted">${file.omitted} more exchanges are in the file and left out here.</p>` : '',
  ].join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${TRACE_PAGE_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeMarkup(options.title)}</h1>
<p class="muted">${file.entries.length} HTTP exchanges. Each arrow opens its request and response below.</p>
${summary}${notes}
<div class="diagram">${renderSequenceSvg(diagram, { title: 'Sequence diagram of the flow', id: 'diagram' })}</div>
<h2>Exchanges</h2>
${drawn.map(({ entry, index }) => exchangeSection(entry, index, diagram)).join('\n')}
</main>
</body>
</html>
`;
}

function failureText(e: TraceEntry): string {
  if (e.status === 0) return e.error ?? 'no response';
  const params = e.step === 'callback' ? requestParams(e) : undefined;
  const error = params?.get('error') ?? /"error"\s*:\s*"([^"]{0,200})"/.exec(e.responseBody)?.[1];
  return `HTTP ${e.status}${error ? `, ${error}` : ''}`;
}

function exchangeSection(e: TraceEntry, index: number, diagram: SequenceDiagram): string {
  const ref = `x${index + 1}`;
  const at = diagram.messages.findIndex((m) => m.ref === ref);
  const title = at >= 0 ? describeMessage(diagram, diagram.messages[at]!, at).replace(/^\d+\. /, '') : `${e.method} ${e.url}`;
  const failed = entryFailed(e);
  return `<details class="exchange${failed ? ' failed' : ''}"${failed ? ' open' : ''}>
<summary>${index + 1}. ${failed ? '✗ ' : ''}${escapeMarkup(title)}${e.handoff ? '' : `, ${e.status === 0 ? 'no response' : e.status}`} <span class="muted">(${escapeMarkup(e.actor)}, ${escapeMarkup(e.step)}${e.time >= 0 ? `, ${Math.round(e.time)} ms` : ''})</span></summary>
<div class="exchange-body" id="${ref}">
<h3>Request</h3>
<p><code>${escapeMarkup(e.method)} ${escapeMarkup(e.url)}</code></p>
${table(
  'Request headers',
  e.requestHeaders.map((h) => [h.name, h.value]),
)}
${paramsTable(e)}
${e.requestBody !== undefined ? body('Request body', e.requestBody) : ''}
<h3>Response</h3>
<p>${e.handoff ? 'Sent to the user agent: the answer went to the browser.' : e.status === 0 ? `No response: ${escapeMarkup(e.error ?? '')}` : `HTTP ${e.status}`}</p>
${table(
  'Response headers',
  e.responseHeaders.map((h) => [h.name, h.value]),
)}
${e.responseBody !== '' ? body('Response body', e.responseBody) : ''}
${jwtSection(e)}
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

const JWT = /\b(eyJ[A-Za-z0-9_-]{2,4096})\.(eyJ[A-Za-z0-9_-]{2,16384})\.([A-Za-z0-9_-]*|\[signature redacted\])/g;

/** Every JWT in the exchange (tokens, ID tokens, DPoP proofs, assertions), decoded: header and claims. */
function jwtSection(e: TraceEntry): string {
  const haystack = [e.url, ...e.requestHeaders.map((h) => h.value), e.requestBody ?? '', ...e.responseHeaders.map((h) => h.value), e.responseBody].join('\n');
  const found = new Set<string>();
  for (const m of haystack.matchAll(JWT)) {
    if (found.size >= 10) break;
    found.add(`${m[1]}.${m[2]}`);
  }
  const decoded = [...found].flatMap((jwt) => {
    const [header, payload] = jwt.split('.').map(decodePart);
    return header === undefined || payload === undefined ? [] : [`<pre>${escapeMarkupBlock(`${header}\n${payload}`)}</pre>`];
  });
  return decoded.length === 0 ? '' : `<h3>Decoded JWTs</h3>${decoded.join('')}`;
}

function decodePart(part: string | undefined): string | undefined {
  if (part === undefined) return undefined;
  try {
    return JSON.stringify(JSON.parse(Buffer.from(part, 'base64url').toString('utf8')), null, 2);
  } catch {
    return undefined;
  }
}
