import { decodeJwtUnverified } from '../oauth/jwt.js';

/** The smallest guessing resistance RFC 6749 section 10.10 allows: 2^-128 (and SHOULD be 2^-160). */
export const MIN_ENTROPY_BITS = 128;

const CLASSES: readonly RegExp[] = [/[0-9]/, /[a-z]/, /[A-Z]/, /[-_]/, /[+/=]/, /[.~]/];
const CLASS_SIZES = [10, 26, 26, 2, 3, 2];

/**
 * An upper bound of a random value's entropy, from its length and the characters it uses (hex counts
 * 4 bits a character, base64url 6): a value below the bound is certainly too short to resist guessing;
 * one above it may still be predictable, which no black-box test can show.
 */
export function entropyUpperBound(value: string): number {
  if (/^[0-9a-f]+$/.test(value) || /^[0-9A-F]+$/.test(value)) return value.length * (/^[0-9]+$/.test(value) ? Math.log2(10) : 4);
  let alphabet = 0;
  CLASSES.forEach((re, i) => {
    if (re.test(value)) alphabet += CLASS_SIZES[i] ?? 0;
  });
  const other = [...value].some((c) => !CLASSES.some((re) => re.test(c)));
  if (other) alphabet += 32;
  return value.length * Math.log2(Math.max(alphabet, 2));
}

/** A verdict on the guessing resistance of one or more values of one kind (codes, tokens): distinct, long enough. */
export function judgeEntropy(kind: string, values: readonly string[]): { ok: boolean; detail: string } {
  if (new Set(values).size < values.length) return { ok: false, detail: `two ${kind}s were the same` };
  const jwt = values.map((v) => decodeJwtUnverified(v)).find((d) => d !== undefined);
  if (jwt) {
    if (jwt.header.alg === 'none') return { ok: false, detail: `the ${kind} is an unsigned JWT (alg none): anyone can make one` };
    return { ok: true, detail: `the ${kind} is a signed JWT (${String(jwt.header.alg)}): guessing one means forging its signature` };
  }
  const bits = Math.min(...values.map(entropyUpperBound));
  const shortest = values.reduce((a, b) => (a.length <= b.length ? a : b));
  if (bits < MIN_ENTROPY_BITS)
    return { ok: false, detail: `a ${kind} of ${shortest.length} characters holds at most ${Math.floor(bits)} bits (RFC 6749 §10.10 asks for at least ${MIN_ENTROPY_BITS})` };
  return { ok: true, detail: `${values.length} ${kind}s, distinct, up to ${Math.floor(bits)} bits each` };
}
