import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { keyPairSync } from '../../helpers/keys.js';

export interface FapiOidcProvider {
  issuer: string;
  /** PEM (PKCS#8) of fapi-cli's private key (private_key_jwt). */
  signingKeyPem: string;
  close(): Promise<void>;
}

type Rar = { type: string } & Record<string, unknown>;

const FAPI2_ALGS = ['PS256', 'ES256', 'EdDSA'];

export const PAYMENTS_API = 'https://bank.example.test/payments';

/**
 * panva/oidc-provider 9 configured as its documentation says for the FAPI 2.0 Security Profile
 * (`features.fapi.profile '2.0'`, PAR required, DPoP, private_key_jwt only), JARM
 * (`features.jwtResponseModes`) and rich authorization requests (`features.richAuthorizationRequests`
 * with the type payment_initiation), its development login and consent pages; its algorithms those of
 * section 5.4.1 (PS256, ES256, EdDSA), its key P-256. One client, fapi-cli.
 */
export async function startFapiOidcProvider(): Promise<FapiOidcProvider> {
  const dir = mkdtempSync(join(tmpdir(), 'oauthctl-fapi-op-'));
  const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'fapi-key-1', use: 'sig', alg: 'ES256' };
  const signingKeyPem = join(dir, 'fapi-cli.pem');
  writeFileSync(signingKeyPem, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
  // The provider's own key: P-256, so that it signs ID tokens and JWT responses ES256 (FAPI 2.0 Security Profile section 5.4.1; its default key signs RS256).
  const serverKey = keyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const serverJwk = { ...(serverKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'op-key-1', use: 'sig', alg: 'ES256' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    // FAPI 2.0 Security Profile section 5.3.2.2: the code flow only (oidc-provider's default adds id_token response types, and so the implicit grant).
    responseTypes: ['code'],
    clients: [
      {
        client_id: 'fapi-cli',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [publicJwk] },
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        dpop_bound_access_tokens: true,
        id_token_signed_response_alg: 'ES256',
        authorization_signed_response_alg: 'ES256',
        authorization_details_types: ['payment_initiation'],
      },
    ],
    clientAuthMethods: ['private_key_jwt'],
    jwks: { keys: [serverJwk] },
    // FAPI 2.0 Security Profile section 5.4.1: PS256, ES256 and EdDSA only, in every list it announces.
    enabledJWA: {
      clientAuthSigningAlgValues: FAPI2_ALGS,
      idTokenSigningAlgValues: FAPI2_ALGS,
      requestObjectSigningAlgValues: FAPI2_ALGS,
      userinfoSigningAlgValues: FAPI2_ALGS,
      introspectionSigningAlgValues: FAPI2_ALGS,
      authorizationSigningAlgValues: FAPI2_ALGS,
      dPoPSigningAlgValues: ['ES256', 'EdDSA'],
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      fapi: { enabled: true, profile: '2.0' },
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: true },
      dPoP: { enabled: true },
      jwtResponseModes: { enabled: true },
      // oidc-provider grants authorization_details only for a resource (RFC 8707): one payments API, the default.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PAYMENTS_API,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== PAYMENTS_API) throw new Error('unknown resource');
          return { scope: 'payments', audience: PAYMENTS_API, accessTokenFormat: 'opaque' };
        },
      },
      richAuthorizationRequests: {
        enabled: true,
        types: { payment_initiation: { validate: () => undefined } },
        authorizationDetailsForGrantSource: (ctx: { oidc: { grant?: { rar?: Rar[] } } }) => ctx.oidc.grant?.rar,
        authorizationDetailsForAccessToken: (_ctx: unknown, _token: unknown, source: { rar?: Rar[] } | undefined) => source?.rar,
        authorizationDetailsForIntrospection: (_ctx: unknown, token: { rar?: Rar[] }) => token.rar,
      },
    },
    scopes: ['openid', 'offline_access', 'payments'],
    cookies: { keys: ['oauthctl-fapi-interop-cookie-key'] },
  });
  provider.on('server_error', () => undefined);
  server.on('request', provider.callback());
  return {
    issuer,
    signingKeyPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(dir, { recursive: true, force: true });
      }),
  };
}
