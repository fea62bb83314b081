/**
 * A tolerant HTML tokenizer: just enough of HTML to find forms, their fields, labels, links and
 * scripts on an authorization server's pages. Malformed markup never throws; it yields what it can.
 */
export type HtmlToken =
  | { kind: 'start'; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { kind: 'end'; name: string }
  | { kind: 'text'; text: string }
  /** The body of a <script>, <style> or <textarea> element, kept raw. */
  | { kind: 'raw'; name: string; text: string };

const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Decodes character references (`&amp;`, `&#39;`, `&#x2F;`); unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

export function tokenizeHtml(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  const n = html.length;
  let i = 0;
  let lower: string | undefined;
  const pushText = (text: string) => {
    if (text) tokens.push({ kind: 'text', text: decodeEntities(text) });
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      pushText(html.slice(i));
      break;
    }
    pushText(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (html[lt + 1] === '!' || html[lt + 1] === '?') {
      const end = html.indexOf('>', lt);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const endTag = /^<\/([a-zA-Z][\w:-]*)[^>]*>?/.exec(html.slice(lt, lt + 200));
    if (endTag) {
      tokens.push({ kind: 'end', name: (endTag[1] ?? '').toLowerCase() });
      i = lt + endTag[0].length;
      continue;
    }
    const nameMatch = /^<([a-zA-Z][\w:-]*)/.exec(html.slice(lt, lt + 100));
    if (!nameMatch) {
      pushText('<');
      i = lt + 1;
      continue;
    }
    const name = (nameMatch[1] ?? '').toLowerCase();
    const { attrs, end, selfClosing } = readAttributes(html, lt + nameMatch[0].length);
    tokens.push({ kind: 'start', name, attrs, selfClosing });
    i = end;
    if (RAW_TEXT.has(name) && !selfClosing) {
      lower ??= html.toLowerCase();
      const close = lower.indexOf(`</${name}`, i);
      const text = html.slice(i, close < 0 ? n : close);
      tokens.push({ kind: 'raw', name, text: name === 'textarea' || name === 'title' ? decodeEntities(text) : text });
      if (close < 0) break;
      const gt = html.indexOf('>', close);
      tokens.push({ kind: 'end', name });
      i = gt < 0 ? n : gt + 1;
    }
  }
  return tokens;
}

/** Reads attributes from `start` up to the tag's closing `>`; names lower-cased, values decoded. */
function readAttributes(html: string, start: number): { attrs: Record<string, string>; end: number; selfClosing: boolean } {
  const attrs: Record<string, string> = {};
  const n = html.length;
  let i = start;
  let selfClosing = false;
  while (i < n) {
    while (i < n && /\s/.test(html[i] ?? '')) i++;
    const c = html[i];
    if (c === undefined) break;
    if (c === '>') return { attrs, end: i + 1, selfClosing };
    if (c === '/') {
      selfClosing = html[i + 1] === '>';
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && !/[\s=>/]/.test(html[i] ?? '')) i++;
    const attrName = html.slice(nameStart, i).toLowerCase();
    while (i < n && /\s/.test(html[i] ?? '')) i++;
    let value = '';
    if (html[i] === '=') {
      i++;
      while (i < n && /\s/.test(html[i] ?? '')) i++;
      const q = html[i];
      if (q === '"' || q === "'") {
        const close = html.indexOf(q, i + 1);
        value = html.slice(i + 1, close < 0 ? n : close);
        i = close < 0 ? n : close + 1;
      } else {
        const valueStart = i;
        while (i < n && !/[\s>]/.test(html[i] ?? '')) i++;
        value = html.slice(valueStart, i);
      }
    }
    if (attrName && !(attrName in attrs)) attrs[attrName] = decodeEntities(value);
  }
  return { attrs, end: n, selfClosing };
}
