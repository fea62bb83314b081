import { describe, expect, it } from 'vitest';
import { loadMockConfig, validateMockConfig } from '../../src/mock/index.js';
import { keyPairSync } from '../helpers/keys.js';

const { publicKey, privateKey } = keyPairSync('ec', { namedCurve: 'P-256' });
const PUBLIC = publicKey.export({ format: 'jwk' });
const PRIVATE = privateKey.export({ format: 'jwk' });
const client = (fields: Record<string, unknown>) => ({ clients: [{ client_id: 'a', redirect_uris: ['http://127.0.0.1/cb'], ...fields }] });

function errorsOf(input: unknown): string[] {
  const result = validateMockConfig(input);
  return result.ok ? [] : result.errors;
}

describe('mock configuration: keys, PAR, DPoP, JAR, resources', () => {
  it.each<[unknown, string]>([
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [PRIVATE] } }), 'clients[0].jwks: keys[0] holds private or symmetric key material (d)'],
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }), 'clients[0].jwks: keys[0] holds private or symmetric key material (k)'],
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'bad' }] } }), 'clients[0].jwks: keys[0] is not a valid public JWK'],
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks: [PUBLIC] }), 'clients[0].jwks: must be a JWK Set'],
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://keys.example/jwks' }), 'clients[0].jwks_uri: must be https, or http on a loopback host'],
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [PUBLIC] }, jwks_uri: 'https://keys.example/jwks' }), 'clients[0].jwks_uri: a client has jwks or jwks_uri, not both'],
    [client({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [PUBLIC] }, client_secret: 's' }), 'clients[0].client_secret: a private_key_jwt client authenticates with a key'],
    [client({ token_endpoint_auth_method: 'client_secret_jwt' }), 'clients[0].token_endpoint_auth_method: is "client_secret_jwt" but the client has no client_secret'],
    [client({ token_endpoint_auth_method: 'tls_client_auth' }), 'clients[0].token_endpoint_auth_method: is "tls_client_auth" but the client has no tls_client_auth_subject_dn'],
    [client({ token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_subject_dn: 'photo' }), 'clients[0].tls_client_auth_subject_dn: must be a distinguished name'],
    [client({ token_endpoint_auth_method: 'self_signed_tls_client_auth' }), 'clients[0].token_endpoint_auth_method: is "self_signed_tls_client_auth" but the client has neither jwks nor jwks_uri'],
    [client({ dpop_bound_access_tokens: 'yes' }), 'clients[0].dpop_bound_access_tokens: must be true or false'],
    [client({ require_pushed_authorization_requests: 1 }), 'clients[0].require_pushed_authorization_requests: must be true or false'],
    [client({ require_signed_request_object: true }), 'clients[0].require_signed_request_object: the client has no jwks, jwks_uri or client_secret'],
    [{ resources: ['https://ok.example/', 'relative/path'] }, 'resources[1]: must be an absolute URI'],
    [{ resources: ['https://x.example/#frag'] }, 'resources[0]: must not contain a fragment'],
    [{ resources: 'https://x.example/' }, 'resources: must be an array'],
    [{ dpop_nonce: 'on' }, 'dpop_nonce: must be true or false'],
    [{ require_pushed_authorization_requests: 'yes' }, 'require_pushed_authorization_requests: must be true or false'],
    [{ tls_client_auth_ca: 5 }, 'tls_client_auth_ca: must be a PEM certificate or the path of a PEM file'],
    // TLS belongs to the one server: a named issuer has no CA of its own.
    [{ issuers: { tenant: { tls_client_auth_ca: 'ca.pem' } } }, 'issuers.tenant.tls_client_auth_ca: unknown field'],
    [{ issuers: { tenant: { dpop_nonce: 'on' } } }, 'issuers.tenant.dpop_nonce: must be true or false'],
  ])('%j -> %s', (input, expected) => {
    const errors = errorsOf(input);
    expect(
      errors.some((e) => e.startsWith(expected)),
      errors.join('\n'),
    ).toBe(true);
  });

  it('takes the registered metadata names', () => {
    const result = validateMockConfig({
      resources: ['https://prints.example/api'],
      dpop_nonce: true,
      clients: [
        {
          client_id: 'k',
          redirect_uris: ['http://127.0.0.1/cb'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [PUBLIC] },
          require_pushed_authorization_requests: true,
          dpop_bound_access_tokens: true,
          require_signed_request_object: true,
        },
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.resources).toEqual(['https://prints.example/api']);
    expect(result.config.dpopNonce).toBe(true);
    expect(result.config.clients.get('k')).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      requirePushedAuthorizationRequests: true,
      dpopBoundAccessTokens: true,
      requireSignedRequestObject: true,
      requirePkce: false,
    });
  });

  it('a named issuer takes resources, PAR and DPoP settings of its own', () => {
    const result = validateMockConfig({ issuers: { tenant: { resources: ['https://prints.example/api'], dpop_nonce: true, require_pushed_authorization_requests: true } } });
    expect(result.ok && result.config.issuers.get('tenant')).toMatchObject({ resources: ['https://prints.example/api'], dpopNonce: true, requirePushedAuthorizationRequests: true });
  });

  it('fixtures/mock/modern.jsonc is valid', async () => {
    const result = validateMockConfig(await loadMockConfig('fixtures/mock/modern.jsonc'));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });
});
