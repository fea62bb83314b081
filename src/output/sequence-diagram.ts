import { escapeLogValue } from './escape.js';

/**
 * A flow as a sequence diagram: lifelines (user agent, client, authorization server, resources) and
 * one arrow per request and per response. `oauthctl trace` draws it as text and as SVG; the mock's
 * flows page draws its flows with the same SVG code (sequence-svg.ts).
 */
export interface Lifeline {
  /** `user agent`, `client`, `authorization server`, `resource`. */
  role: string;
  /** The host, when it helps tell two apart. */
  host?: string | undefined;
}

export interface SequenceMessage {
  from: number;
  to: number;
  /** `POST /token`, or for a response `200` / `302 -> /callback`. */
  label: string;
  /** The parameters that matter: `state=...`, `scope=...`, `error=...`. */
  params: string[];
  reply: boolean;
  /** The step that failed (an error response, a status >= 400, no response at all). */
  failed: boolean;
  /** Where the full request and response are shown (the HTML page's anchor). */
  ref?: string | undefined;
  /** The step of the flow (`token`, `authorization`, ...). */
  step?: string | undefined;
}

export interface SequenceDiagram {
  lifelines: Lifeline[];
  messages: SequenceMessage[];
}

/** A message in words, for screen readers and the text view: `3. client to authorization server: POST /token (grant_type=...)`. */
export function describeMessage(d: SequenceDiagram, m: SequenceMessage, index: number): string {
  const name = (i: number) => d.lifelines[i]?.role ?? '?';
  const params = m.params.length > 0 ? ` (${m.params.join(', ')})` : '';
  return `${index + 1}. ${name(m.from)} to ${name(m.to)}: ${m.reply ? 'response ' : ''}${m.label}${params}${m.failed ? ', failed' : ''}`;
}

/**
 * The request parameters worth a glance on an arrow (the rest is one click away), and the response's:
 * those a person debugging a redirect compares first, the client and where it is sent back
 * (RFC 6749 sections 4.1.1 and 4.1.3), then what it asks for and how the answer comes.
 */
export const REQUEST_PARAMS: readonly string[] = [
  'response_type',
  'grant_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge_method',
  'response_mode',
  'prompt',
  'request_uri',
  'error',
  'error_description',
];
export const RESPONSE_PARAMS: readonly string[] = ['error', 'error_description', 'state', 'iss', 'token_type', 'scope', 'active'];

const MIN_WIDTH = 40;

/**
 * The diagram in text, no line longer than `width` columns. Every text is escaped for a log line
 * first (no control character, no line break from the network reaches the terminal).
 */
export function renderSequenceText(d: SequenceDiagram, width: number, paint: (text: string, failed: boolean) => string = (t) => t): string {
  const w = Math.max(MIN_WIDTH, Math.floor(width));
  const n = Math.max(1, d.lifelines.length);
  const pad = Math.max(2, Math.floor(w / (2 * n)));
  const spacing = n === 1 ? 0 : Math.floor((w - 1 - 2 * pad) / (n - 1));
  const cols = d.lifelines.map((_, i) => (n === 1 ? Math.floor(w / 2) : pad + i * spacing));
  const lines: string[] = [];
  const blank = (): string[] => {
    const row = Array.from({ length: w }, () => ' ');
    for (const c of cols) row[c] = '│';
    return row;
  };
  const put = (row: string[], at: number, text: string, max: number) => {
    const chars = [...fit(text, max)];
    chars.forEach((ch, i) => {
      if (at + i >= 0 && at + i < w) row[at + i] = ch;
    });
  };
  for (const key of ['role', 'host'] as const) {
    const row = Array.from({ length: w }, () => ' ');
    d.lifelines.forEach((l, i) => {
      const text = escapeLogValue(l[key] ?? '');
      const room = n === 1 ? w : Math.max(4, spacing - 1);
      const shown = fit(text, room);
      put(row, Math.min(w - [...shown].length, Math.max(0, cols[i]! - Math.floor([...shown].length / 2))), shown, room);
    });
    if (row.some((c) => c !== ' ')) lines.push(row.join('').trimEnd());
  }
  lines.push(blank().join('').trimEnd());
  for (const m of d.messages) {
    const a = cols[m.from] ?? 0;
    const b = cols[m.to] ?? 0;
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const row = blank();
    const rightward = b > a;
    for (let x = lo + 1; x < hi; x++) row[x] = m.reply ? '╌' : '─';
    if (hi > lo) row[rightward ? hi - 1 : lo + 1] = rightward ? '▶' : '◀';
    const label = escapeLogValue(`${m.failed ? '✗ ' : ''}${m.label}`);
    const room = hi - lo - 4;
    if (room >= 3) {
      const shown = fit(` ${label} `, room);
      put(row, lo + 2 + Math.max(0, Math.floor((room - [...shown].length) / 2)), shown, room);
    }
    lines.push(paint(row.join('').trimEnd(), m.failed));
    if (m.params.length > 0) {
      const row2 = blank();
      const text = escapeLogValue(m.params.join(' '));
      put(row2, lo + 2, text, w - lo - 2);
      lines.push(row2.join('').trimEnd());
    }
  }
  lines.push(blank().join('').trimEnd());
  return `${lines.join('\n')}\n`;
}

/** Cut to at most `max` characters (code points), ending in `…` when cut. */
export function fit(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  if (max <= 1) return chars.slice(0, Math.max(0, max)).join('');
  return `${chars.slice(0, max - 1).join('')}…`;
}
