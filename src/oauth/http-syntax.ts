/**
 * The character classes of HTTP's grammar (RFC 9110 section 5.6), checked a character at a time:
 * these run on every request and answer of a short command, where compiling a regular expression
 * the first time costs more than the check itself.
 */

// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;

/** Whether a character (its code) is a tchar. */
export function isTchar(c: number): boolean {
  return c < 128 && TCHAR[c] === 1;
}

/** token = 1*tchar: a method or a field name. */
export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) if (!isTchar(text.charCodeAt(i))) return false;
  return true;
}

/**
 * Whether a field value has a character no field value may carry (section 5.5: visible characters,
 * SP, HTAB and obs-text): a control character, or with `octetsOnly` one above 0xFF (a field is
 * written in octets, and such a character cannot be).
 */
export function hasBadFieldChar(value: string, octetsOnly = false): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f || (octetsOnly && c > 0xff)) return true;
  }
  return false;
}

/** OWS trimmed from both ends of a field value (SP and HTAB, section 5.6.3). */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** A number in `base` 10 or 16 made of 1 to `maxDigits` digits and nothing else; else undefined. */
export function parseDigits(text: string, base: 10 | 16, maxDigits: number): number | undefined {
  if (text.length === 0 || text.length > maxDigits) return undefined;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (base === 16 && c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (base === 16 && c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return undefined;
    n = n * base + d;
  }
  return n;
}
