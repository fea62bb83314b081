import { describe, expect, it } from 'vitest';
import { AuthorizationResponseError, validateAuthorizationResponse } from '../../src/oauth/authorization-response.js';
import { OAuthError } from '../../src/oauth/errors.js';

function problem(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof AuthorizationResponseError) return err.code;
    if (err instanceof OAuthError) return `oauth:${err.error}`;
    throw err;
  }
  return undefined;
}

describe('validateAuthorizationResponse', () => {
  it('returns the code when state matches', () => {
    expect(validateAuthorizationResponse({ code: 'c', state: 's' }, { state: 's' })).toEqual({ code: 'c', state: 's' });
  });
  it('checks state before anything else, even an error response', () => {
    expect(problem(() => validateAuthorizationResponse({ code: 'c', state: 'other' }, { state: 's' }))).toBe('state_mismatch');
    expect(problem(() => validateAuthorizationResponse({ error: 'access_denied', state: 'other' }, { state: 's' }))).toBe('state_mismatch');
    expect(problem(() => validateAuthorizationResponse({ code: 'c' }, { state: 's' }))).toBe('state_missing');
  });
  it('turns an error response into an OAuthError with all three fields', () => {
    try {
      validateAuthorizationResponse({ error: 'access_denied', error_description: 'no', error_uri: 'https://e/x', state: 's' }, { state: 's' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(OAuthError);
      const e = err as OAuthError;
      expect([e.error, e.error_description, e.error_uri]).toEqual(['access_denied', 'no', 'https://e/x']);
      expect(e.message).toBe('access_denied: no (see https://e/x)');
    }
  });
  it('RFC 9207: iss must match a known issuer, and be present when the metadata promises it', () => {
    const ok = { code: 'c', state: 's', iss: 'https://as' };
    expect(validateAuthorizationResponse(ok, { state: 's', issuer: 'https://as' }).iss).toBe('https://as');
    expect(problem(() => validateAuthorizationResponse(ok, { state: 's', issuer: 'https://other' }))).toBe('iss_mismatch');
    expect(problem(() => validateAuthorizationResponse({ code: 'c', state: 's' }, { state: 's', issuer: 'https://as', issRequired: true }))).toBe('iss_missing');
    expect(problem(() => validateAuthorizationResponse({ code: 'c', state: 's' }, { state: 's', issuer: 'https://as' }))).toBeUndefined();
    // Without a known issuer there is nothing to compare with.
    expect(problem(() => validateAuthorizationResponse(ok, { state: 's' }))).toBeUndefined();
  });
  it('needs a code', () => {
    expect(problem(() => validateAuthorizationResponse({ state: 's' }, { state: 's' }))).toBe('code_missing');
    expect(problem(() => validateAuthorizationResponse({ state: 's', code: '' }, { state: 's' }))).toBe('code_missing');
  });
});
