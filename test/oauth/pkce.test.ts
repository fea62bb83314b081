import { describe, expect, it } from 'vitest';
import {
  calculateCodeChallenge,
  codeVerifierLengthProblem,
  codeVerifierProblem,
  constantTimeEqual,
  createPkcePair,
  generateCodeVerifier,
  isValidCodeVerifier,
  verifyCodeChallenge,
} from '../../src/oauth/pkce.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

describe('RFC 7636 appendix B', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  it('computes the S256 challenge of the example verifier', () => {
    expect(calculateCodeChallenge(verifier, 'S256')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
  it('is S256 by default, unpadded base64url', () => {
    const challenge = calculateCodeChallenge(verifier);
    expect(challenge).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(challenge).not.toMatch(/[=+/]/);
  });
  it('verifies the example pair and refuses a wrong verifier', () => {
    expect(verifyCodeChallenge(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'S256')).toBe(true);
    expect(verifyCodeChallenge(`${verifier.slice(0, -1)}Y`, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'S256')).toBe(false);
  });
});

describe('plain method', () => {
  it('uses the verifier as the challenge', () => {
    const v = 'a'.repeat(43);
    expect(calculateCodeChallenge(v, 'plain')).toBe(v);
    expect(verifyCodeChallenge(v, v, 'plain')).toBe(true);
    expect(verifyCodeChallenge(v, `${v}b`, 'plain')).toBe(false);
  });
});

describe('code verifier rules (RFC 7636 section 4.1)', () => {
  it('accepts 43 and 128 characters, refuses 42 and 129, naming the length rule', () => {
    expect(codeVerifierProblem('a'.repeat(43))).toBeUndefined();
    expect(codeVerifierProblem('a'.repeat(128))).toBeUndefined();
    expect(codeVerifierProblem('a'.repeat(42))).toMatch(/43 to 128 characters.*has 42/);
    expect(codeVerifierProblem('a'.repeat(129))).toMatch(/43 to 128 characters.*has 129/);
    expect(codeVerifierProblem('')).toMatch(/has 0/);
  });
  it('accepts every unreserved character', () => {
    expect(codeVerifierProblem(ALPHABET)).toBeUndefined();
  });
  it.each(['+', '/', '=', ' ', '%', 'é', '!', '*'])('refuses %j and names it', (c) => {
    const problem = codeVerifierProblem(`${'a'.repeat(50)}${c}`);
    expect(problem).toMatch(/A-Z a-z 0-9 - \. _ ~/);
    expect(problem).toContain(JSON.stringify(c));
  });
  it('a verifier outside the rules never verifies, even against its own challenge', () => {
    const bad = 'short';
    expect(isValidCodeVerifier(bad)).toBe(false);
    expect(verifyCodeChallenge(bad, calculateCodeChallenge(bad, 'plain'), 'plain')).toBe(false);
  });
});

describe('generateCodeVerifier', () => {
  it('is 64 characters by default and valid', () => {
    const v = generateCodeVerifier();
    expect(v).toHaveLength(64);
    expect(isValidCodeVerifier(v)).toBe(true);
  });
  it.each([43, 44, 100, 128])('makes valid verifiers of length %i', (n) => {
    const v = generateCodeVerifier(n);
    expect(v).toHaveLength(n);
    expect(codeVerifierProblem(v)).toBeUndefined();
  });
  it.each([0, 42, 129, 43.5, Number.NaN])('refuses length %s', (n) => {
    expect(codeVerifierLengthProblem(n)).toBeDefined();
    expect(() => generateCodeVerifier(n)).toThrow(RangeError);
  });
  it('never repeats', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateCodeVerifier(43)));
    expect(seen.size).toBe(200);
  });
  it('draws every one of the 66 characters about equally often', () => {
    const counts = new Map<string, number>();
    const samples = 2000;
    for (let i = 0; i < samples; i++) for (const c of generateCodeVerifier(128)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...ALPHABET].sort().join(''));
    const expected = (samples * 128) / ALPHABET.length;
    // Chi-squared with 65 degrees of freedom: p = 0.000001 at about 133; a modulo bias (256 % 66) would add hundreds.
    let chi = 0;
    for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
    expect(chi).toBeLessThan(140);
  });
  it('createPkcePair pairs a fresh verifier with its challenge', () => {
    const pair = createPkcePair(50);
    expect(pair.codeVerifier).toHaveLength(50);
    expect(pair.codeChallenge).toBe(calculateCodeChallenge(pair.codeVerifier));
    expect(pair.codeChallengeMethod).toBe('S256');
  });
});

describe('constantTimeEqual', () => {
  it('compares strings, lengths included', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});
