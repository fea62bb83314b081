import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: code_verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" */
export const CODE_VERIFIER_MIN_LENGTH = 43;
export const CODE_VERIFIER_MAX_LENGTH = 128;
export const DEFAULT_CODE_VERIFIER_LENGTH = 64;
const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

export type CodeChallengeMethod = 'S256' | 'plain';
export const CODE_CHALLENGE_METHODS: readonly CodeChallengeMethod[] = ['S256', 'plain'];

export interface PkcePair {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: CodeChallengeMethod;
}

/**
 * Names the RFC 7636 section 4.1 rule a code verifier breaks, or returns undefined when it is valid.
 * The client (`oauthctl pkce --verifier`) and the mock's token endpoint both use this one check.
 */
export function codeVerifierProblem(verifier: string): string | undefined {
  if (verifier.length < CODE_VERIFIER_MIN_LENGTH || verifier.length > CODE_VERIFIER_MAX_LENGTH) {
    return `code verifier must be ${CODE_VERIFIER_MIN_LENGTH} to ${CODE_VERIFIER_MAX_LENGTH} characters long (RFC 7636 section 4.1); this one has ${verifier.length}`;
  }
  if (!UNRESERVED.test(verifier)) {
    const bad = [...verifier].find((c) => !UNRESERVED.test(c)) ?? '';
    return `code verifier may only contain A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.1); found ${JSON.stringify(bad)}`;
  }
  return undefined;
}

export function isValidCodeVerifier(verifier: string): boolean {
  return codeVerifierProblem(verifier) === undefined;
}

export function codeVerifierLengthProblem(length: number): string | undefined {
  if (!Number.isInteger(length) || length < CODE_VERIFIER_MIN_LENGTH || length > CODE_VERIFIER_MAX_LENGTH) {
    return `code verifier length must be a whole number from ${CODE_VERIFIER_MIN_LENGTH} to ${CODE_VERIFIER_MAX_LENGTH} (RFC 7636 section 4.1)`;
  }
  return undefined;
}

/**
 * A fresh code verifier from the CSPRNG, drawn uniformly from the 66 unreserved characters
 * (rejection sampling keeps every character equally likely).
 */
export function generateCodeVerifier(length: number = DEFAULT_CODE_VERIFIER_LENGTH): string {
  const problem = codeVerifierLengthProblem(length);
  if (problem) throw new RangeError(problem);
  const limit = 256 - (256 % ALPHABET.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += ALPHABET[byte % ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * RFC 7636 section 4.2: S256 is BASE64URL(SHA256(ASCII(code_verifier))), unpadded; plain is the verifier
 * itself. (A valid verifier is ASCII, whose UTF-8 encoding is the same octets.)
 */
export function calculateCodeChallenge(codeVerifier: string, method: CodeChallengeMethod = 'S256'): string {
  if (method === 'plain') return codeVerifier;
  return hash('sha256', codeVerifier, 'base64url');
}

export function createPkcePair(length?: number, method: CodeChallengeMethod = 'S256'): PkcePair {
  const codeVerifier = generateCodeVerifier(length);
  return { codeVerifier, codeChallenge: calculateCodeChallenge(codeVerifier, method), codeChallengeMethod: method };
}

/** Compares two strings in constant time (for secrets, challenges and other values an attacker may probe). */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer')) && a.length === b.length;
}

/**
 * RFC 7636 section 4.6: the server recomputes the challenge from the verifier and compares. The
 * comparison is constant-time in the contents; only the lengths, which are not secret, are compared
 * plainly first (an S256 challenge is always 43 characters).
 */
export function verifyCodeChallenge(codeVerifier: string, codeChallenge: string, method: CodeChallengeMethod): boolean {
  if (!isValidCodeVerifier(codeVerifier)) return false;
  const expected = Buffer.from(calculateCodeChallenge(codeVerifier, method), 'utf8');
  const actual = Buffer.from(codeChallenge, 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
