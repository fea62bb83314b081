// FAPI 2.0 Security Profile section 5.4.1 in src/oauth/fapi2.ts: the client's key under the profile,
// the metadata's algorithm lists, and the refusal of a JWT signed otherwise (its alg never raw).
import { describe, expect, it } from 'vitest';
import { fapi2AlgRefusal, fapi2MetadataGaps, fapi2SigningKey } from '../../src/oauth/fapi2.js';
import type { AuthorizationServerMetadata } from '../../src/oauth/discovery.js';
import { keyPairSync } from '../helpers/keys.js';

const rsa = keyPairSync('rsa', { modulusLength: 2048 }).privateKey;

describe('fapi2SigningKey', () => {
  it('an RSA key whose file names no algorithm signs PS256; P-256 and Ed25519 keep ES256 and EdDSA', () => {
    expect(fapi2SigningKey({ key: rsa, alg: 'RS256' })).toMatchObject({ alg: 'PS256' });
    const ec = keyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(fapi2SigningKey({ key: ec, alg: 'ES256' })).toMatchObject({ alg: 'ES256' });
    const ed = keyPairSync('ed25519').privateKey;
    expect(fapi2SigningKey({ key: ed, alg: 'EdDSA' })).toMatchObject({ alg: 'EdDSA' });
  });

  it('refuses an algorithm the profile does not allow, and RSA under 2048 bits', () => {
    expect(fapi2SigningKey({ key: rsa, alg: 'RS256', algStated: true })).toBe("the key's algorithm is RS256; FAPI 2.0 Security Profile section 5.4.1 allows only PS256, ES256, EdDSA");
    expect(fapi2SigningKey({ key: keyPairSync('ec', { namedCurve: 'P-384' }).privateKey, alg: 'ES384' })).toMatch(/algorithm is ES384/);
    expect(fapi2SigningKey({ key: keyPairSync('rsa', { modulusLength: 1024 }).privateKey, alg: 'PS256' })).toMatch(/1024 bits/);
  });
});

describe('fapi2MetadataGaps: section 5.4.1', () => {
  const base: AuthorizationServerMetadata = {
    issuer: 'https://as.example',
    pushed_authorization_request_endpoint: 'https://as.example/par',
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    dpop_signing_alg_values_supported: ['ES256'],
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
  } as AuthorizationServerMetadata;
  const client = { mtls: false, dpopAlg: 'ES256', assertionAlg: 'PS256', requestObjectAlg: 'PS256', idTokens: true, jarm: true };

  it('lists left out say nothing; allowed ones pass', () => {
    expect(fapi2MetadataGaps(base, client)).toEqual([]);
    expect(fapi2MetadataGaps({ ...base, token_endpoint_auth_signing_alg_values_supported: ['PS256', 'ES256'], id_token_signing_alg_values_supported: ['RS256', 'PS256'] }, client)).toEqual([]);
  });

  it('a list with no allowed algorithm, or without the one the client signs with, is a gap', () => {
    expect(
      fapi2MetadataGaps(
        {
          ...base,
          dpop_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_signing_alg_values_supported: ['ES256'],
          request_object_signing_alg_values_supported: ['HS256'],
          authorization_signing_alg_values_supported: ['RS256'],
        },
        client,
      ),
    ).toEqual([
      'a FAPI 2.0 algorithm (PS256, ES256, EdDSA) in dpop_signing_alg_values_supported (5.4.1)',
      'PS256, the algorithm of its client assertions, in token_endpoint_auth_signing_alg_values_supported (5.4.1)',
      'a FAPI 2.0 algorithm (PS256, ES256, EdDSA) in request_object_signing_alg_values_supported (5.4.1)',
      'a FAPI 2.0 algorithm (PS256, ES256, EdDSA) in authorization_signing_alg_values_supported (5.4.1)',
    ]);
  });

  it('without the client fields (the audit), the algorithm lists are not checked', () => {
    expect(fapi2MetadataGaps({ ...base, id_token_signing_alg_values_supported: ['RS256'] }, { mtls: false })).toEqual([]);
  });
});

describe('fapi2AlgRefusal', () => {
  it('names a plain algorithm, never a hostile one raw', () => {
    expect(fapi2AlgRefusal('the ID token', 'PS256')).toBeUndefined();
    expect(fapi2AlgRefusal('the ID token', 'EdDSA')).toBeUndefined();
    expect(fapi2AlgRefusal('the ID token', 'RS256')).toBe('the ID token is signed RS256; FAPI 2.0 Security Profile section 5.4.1 allows only PS256, ES256, EdDSA');
    expect(fapi2AlgRefusal('the ID token', '\u001b[2J\u202eRS256')).toBe('the ID token is signed with an unknown alg; FAPI 2.0 Security Profile section 5.4.1 allows only PS256, ES256, EdDSA');
    expect(fapi2AlgRefusal('the ID token', undefined)).toMatch(/signed without an alg/);
  });
});
