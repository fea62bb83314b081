import { describe, expect, it } from 'vitest';
import { scanJwts } from '../../src/output/jwt-scan.js';

/** The regular expression the scanner replaces: the same matches, at a backtracking cost. */
const JWT_PATTERN = /\b(eyJ[A-Za-z0-9_-]{2,4096})\.(eyJ[A-Za-z0-9_-]{2,16384})\.([A-Za-z0-9_-]*)/g;
const byPattern = (text: string) => [...text.matchAll(JWT_PATTERN)].map((m) => ({ header: m[1], payload: m[2] }));

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const TOKEN = `${part({ alg: 'RS256' })}.${part({ sub: 'alice' })}.c2ln`;

describe('scanJwts finds what the regular expression finds', () => {
  it.each([
    ['a token alone', TOKEN],
    ['in a header and a body', `Authorization: Bearer ${TOKEN}\n{"id_token":"${TOKEN}","x":"eyJ.eyJ."}`],
    ['after a dash inside a run', `abc-${TOKEN} x`],
    ['a redacted signature', `${part({ alg: 'ES256' })}.${part({ htm: 'POST' })}.[signature redacted]`],
    ['glued to a word (no boundary)', `x${TOKEN}`],
    ['parts too short', 'eyJa.eyJb.c eyJab.eyJcd.'],
    ['a header too long', `eyJ${'a'.repeat(4097)}.eyJab.c and ${TOKEN}`],
    ['hostile fragments', `${'eyJ-'.repeat(50)}.${'eyJhbGci.'.repeat(20)}`],
  ])('%s', (_name, text) => {
    expect(scanJwts(text).jwts).toEqual(byPattern(text));
  });

  it('on random texts of the characters that matter', () => {
    const alphabet = ['eyJ', 'a', 'b', '-', '.', ' ', '_', 'x'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect(scanJwts(text).jwts, text).toEqual(byPattern(text));
    }
  });
});

describe('scanJwts is linear on any input', () => {
  // Counting character reads, not time: a loaded machine cannot make this flaky. The regular
  // expression above spends about 4096 steps per `eyJ` on these inputs.
  it.each([
    ['eyJ- repeated, 2 MB', 'eyJ-'.repeat(512 * 1024)],
    ['eyJhbGci. repeated, 2 MB', 'eyJhbGci.'.repeat(233 * 1024)],
    ['a long header run, then a dot and eyJ runs', `eyJ${'a'.repeat(1 << 20)}.${'eyJb'.repeat(1 << 18)}.`],
    ['dashes only', '-'.repeat(1 << 21)],
  ])('%s: under 6 reads a character', (_name, text) => {
    const { steps } = scanJwts(text);
    expect(steps).toBeLessThan(6 * text.length + 16);
  });
});
