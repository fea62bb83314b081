import { escapeMarkup } from './markup.js';
import { describeMessage, fit, type SequenceDiagram } from './sequence-diagram.js';

const COLUMN = 240;
const MARGIN = 24;
const HEAD = 56;
const ROW = 30;
const PARAMS_ROW = 16;
/** Monospace at 12px: about 7.2px a character; at 11px (the parameters), 6.6px. */
const CHAR = 7.2;
const PARAMS_CHAR = 6.6;
/** An arrow's parameters take at most this many lines; the rest is in its exchange. */
const PARAMS_LINES = 3;
/** Kept free at each edge of the drawing. */
const TEXT_INSET = 4;

/**
 * The diagram as inline SVG, no script and no style attribute (so pages with a strict CSP draw it):
 * presentation attributes in currentColor, classes for the page's stylesheet to colour (`seq-failed`,
 * `seq-reply`). Each arrow is a link to `#<ref>` with an accessible name saying what it is.
 */
export function renderSequenceSvg(d: SequenceDiagram, options: { title: string; id?: string }): string {
  const n = Math.max(1, d.lifelines.length);
  const width = MARGIN * 2 + COLUMN * n;
  const x = (i: number) => MARGIN + COLUMN * i + COLUMN / 2;
  let y = HEAD + 16;
  const rows: string[] = [];
  d.messages.forEach((m, i) => {
    const x1 = x(m.from);
    const x2 = x(m.to);
    const dir = x2 >= x1 ? 1 : -1;
    const head = `${x2},${y} ${x2 - dir * 8},${y - 4} ${x2 - dir * 8},${y + 4}`;
    const mid = (x1 + x2) / 2;
    // Each arrow has its rows to itself: its text, centred on the arrow, may use the whole width of the
    // drawing on both sides, not only the arrow's span (a short arrow cut its label with room to spare).
    const room = 2 * Math.min(mid, width - mid) - 2 * TEXT_INSET;
    const label = fit(`${m.failed ? '✗ ' : ''}${m.label}`, Math.floor(room / CHAR));
    const lines = paramLines(m.params, Math.floor(room / PARAMS_CHAR));
    const params = lines
      .map((line, k) => `<text x="${mid}" y="${y + 14 + k * PARAMS_ROW}" text-anchor="middle" class="seq-params" font-size="11" fill="currentColor">${escapeMarkup(line)}</text>`)
      .join('');
    const classes = ['seq-msg', m.reply ? 'seq-reply' : '', m.failed ? 'seq-failed' : ''].filter(Boolean).join(' ');
    const shape = `<g class="${classes}"><line x1="${x1}" y1="${y}" x2="${x2 - dir * 8}" y2="${y}" stroke="currentColor" stroke-width="1.5"${m.reply ? ' stroke-dasharray="5 3"' : ''}/><polygon points="${head}" fill="currentColor"/><text x="${mid}" y="${y - 6}" text-anchor="middle" fill="currentColor">${escapeMarkup(label)}</text>${params}</g>`;
    const name = escapeMarkup(describeMessage(d, m, i));
    rows.push(m.ref !== undefined ? `<a href="#${escapeMarkup(m.ref)}" aria-label="${name}">${shape}</a>` : `<g role="img" aria-label="${name}">${shape}</g>`);
    y += ROW + lines.length * PARAMS_ROW;
  });
  const height = y + 8;
  const heads = d.lifelines
    .map((l, i) => {
      const role = escapeMarkup(fit(l.role, 30));
      const host = l.host ? `<text x="${x(i)}" y="${HEAD - 16}" text-anchor="middle" font-size="11" class="seq-host" fill="currentColor">${escapeMarkup(fit(l.host, 30))}</text>` : '';
      return `<g class="seq-lifeline"><rect x="${x(i) - COLUMN / 2 + 12}" y="4" width="${COLUMN - 24}" height="${HEAD - 12}" rx="6" fill="none" stroke="currentColor"/><text x="${x(i)}" y="24" text-anchor="middle" font-weight="bold" fill="currentColor">${role}</text>${host}<line x1="${x(i)}" y1="${HEAD - 8}" x2="${x(i)}" y2="${height}" stroke="currentColor" stroke-opacity="0.35" stroke-dasharray="2 4"/></g>`;
    })
    .join('');
  const id = options.id ? ` id="${escapeMarkup(options.id)}"` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg"${id} class="seq" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="12" role="group" aria-label="${escapeMarkup(options.title)}"><title>${escapeMarkup(options.title)}</title>${heads}${rows.join('')}</svg>`;
}

/** Parameters packed into at most PARAMS_LINES lines of `max` characters, a parameter never split; `…` where some are left out. */
export function paramLines(params: readonly string[], max: number): string[] {
  const lines: string[] = [];
  for (const param of params) {
    const last = lines.length - 1;
    if (last >= 0 && [...lines[last]!].length + 1 + [...param].length <= max) lines[last] += ` ${param}`;
    else if (lines.length < PARAMS_LINES) lines.push(fit(param, max));
    else {
      lines[last] = fit(`${lines[last]!} …`, max);
      break;
    }
  }
  return lines;
}
