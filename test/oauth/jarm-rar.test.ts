import { describe, expect, it } from 'vitest';
import { parseAuthorizationDetails, parseAuthorizationDetailsParam, unknownAuthorizationDetailTypes } from '../../src/oauth/authorization-details.js';
import { fapi2MetadataGaps } from '../../src/oauth/fapi2.js';
import { checkJarmClaims, isCompactJwe, jarmClaims, jarmDelivery, jarmResponseParams } from '../../src/oauth/jarm.js';

const NOW = 1_800_000_000_000;

describe('JARM claims (JARM section 2.1 and 2.4)', () => {
  it('the response parameters become claims beside iss, aud, exp; and back, the envelope left out', () => {
    const claims = jarmClaims({ code: 'c', state: 's', iss: 'https://forged', error: undefined }, 'https://as', 'app', NOW / 1000, 60);
    expect(claims).toEqual({ iss: 'https://as', aud: 'app', exp: NOW / 1000 + 60, iat: NOW / 1000, code: 'c', state: 's' });
    expect(jarmResponseParams(claims)).toEqual({ iss: 'https://as', code: 'c', state: 's' });
  });

  it('another audience, another issuer, a past or missing exp each fail their check', () => {
    const ok = checkJarmClaims({ iss: 'https://as', aud: 'app', exp: NOW / 1000 + 30 }, { issuer: 'https://as', clientId: 'app', nowMs: NOW });
    expect(ok.every((c) => c.status === 'pass')).toBe(true);
    const bad = checkJarmClaims({ iss: 'https://evil', aud: 'other-app' }, { issuer: 'https://as', clientId: 'app', nowMs: NOW });
    expect(bad.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(['iss', 'aud', 'exp']);
    expect(bad.find((c) => c.name === 'exp')?.detail).toMatch(/exp is missing/);
    const expired = checkJarmClaims({ iss: 'https://as', aud: 'app', exp: NOW / 1000 - 3600 }, { issuer: 'https://as', clientId: 'app', nowMs: NOW });
    expect(expired.find((c) => c.name === 'exp')?.status).toBe('fail');
  });

  it('jwt means query.jwt for the code flow; a JWE has five parts', () => {
    expect([jarmDelivery('jwt'), jarmDelivery('query.jwt'), jarmDelivery('fragment.jwt'), jarmDelivery('form_post.jwt')]).toEqual(['query', 'query', 'fragment', 'form_post']);
    expect(isCompactJwe('a.b.c.d.e')).toBe(true);
    expect(isCompactJwe('a.b.c')).toBe(false);
  });
});

describe('authorization_details (RFC 9396 section 2)', () => {
  it('an array of objects with a string type passes; each other shape says what is wrong', () => {
    expect(parseAuthorizationDetails([{ type: 'payment_initiation', actions: ['initiate'], identifier: 'x' }])).toEqual([{ type: 'payment_initiation', actions: ['initiate'], identifier: 'x' }]);
    expect(parseAuthorizationDetails({ type: 'a' })).toMatch(/must be a JSON array/);
    expect(parseAuthorizationDetails([])).toMatch(/must not be empty/);
    expect(parseAuthorizationDetails(['a'])).toMatch(/\[0\] is not a JSON object/);
    expect(parseAuthorizationDetails([{ actions: [] }])).toMatch(/\[0\] has no type/);
    expect(parseAuthorizationDetails([{ type: 'a' }, { type: 'b', locations: 'https://x' }])).toMatch(/\[1\]\.locations must be an array of strings/);
    expect(parseAuthorizationDetailsParam('[{"type":')).toMatch(/not valid JSON/);
  });

  it('a parameter nested deeper than every other JSON read here is refused in one phrase', () => {
    const deep = `[{"type":"a","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    expect(parseAuthorizationDetailsParam(deep)).toBe('authorization_details is nested more than 100 levels deep (RFC 9396 section 3)');
  });

  it('unknown types are named once each', () => {
    expect(unknownAuthorizationDetailTypes([{ type: 'a' }, { type: 'z' }, { type: 'z' }], ['a', 'b'])).toEqual(['z']);
  });
});

describe('FAPI 2.0 metadata gaps (Security Profile section 5.3.2)', () => {
  const full = {
    issuer: 'https://as',
    pushed_authorization_request_endpoint: 'https://as/par',
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    dpop_signing_alg_values_supported: ['ES256'],
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
  };
  it('a server with all of them lacks nothing; each one missing is named', () => {
    expect(fapi2MetadataGaps(full, { mtls: false })).toEqual([]);
    expect(fapi2MetadataGaps({ issuer: 'https://as', token_endpoint_auth_methods_supported: ['client_secret_basic'] }, { mtls: false })).toEqual([
      'pushed_authorization_request_endpoint (PAR, 5.3.2.2)',
      'S256 in code_challenge_methods_supported (PKCE, 5.3.2.2)',
      'authorization_response_iss_parameter_supported (RFC 9207, 5.3.2.2)',
      'dpop_signing_alg_values_supported (DPoP sender constraint, 5.3.2.1)',
      'private_key_jwt or tls_client_auth in token_endpoint_auth_methods_supported (5.3.2.1)',
    ]);
    expect(fapi2MetadataGaps(full, { mtls: true })).toEqual(['tls_client_certificate_bound_access_tokens (mTLS sender constraint, 5.3.2.1)']);
  });
});
