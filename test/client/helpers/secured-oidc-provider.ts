import { X509Certificate, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { keyPairSync } from '../../helpers/keys.js';

export const CSJWT_SECRET = 'csjwt-secret-0123456789abcdef0123456789abcdef';
export const WEB_SECRET = 'web-app-secret-0123456789abcdef0123456789abcdef';
export const RESOURCE = 'https://api.example.test/photos';

export interface SecuredOidcProvider {
  issuer: string;
  /** PEM (PKCS#8) of the private key registered for pkjwt-cli and jar-cli, and the same key as a private JWK with a kid. */
  signingKeyPem: string;
  signingKeyJwk: string;
  /** A public-only PEM, for the "public key given" error. */
  publicKeyPem: string;
  /** A key no client registered. */
  strangerKeyPem: string;
  dir: string;
  close(): Promise<void>;
}

export interface SecuredOptions {
  /** DPoP proofs must carry a server nonce (RFC 9449 section 8). */
  requireDpopNonce?: boolean;
  /**
   * HTTPS with this server certificate, asking for client certificates (not verified against a CA:
   * a test), and mutual TLS on (RFC 8705): client mtls-cli authenticates with tls_client_auth as
   * CN=oauthctl-test-client and gets certificate-bound access tokens.
   */
  tls?: { cert: string; key: string };
}

/**
 * panva/oidc-provider 9 in-process with what the secured client features need: PAR, DPoP,
 * private_key_jwt and client_secret_jwt, request objects and resource indicators, its development
 * login and consent pages. Clients:
 * - native-cli: public, PKCE;   web-app: client_secret_basic;   csjwt-app: client_secret_jwt;
 * - pkjwt-cli: private_key_jwt; jar-cli: private_key_jwt and signed request objects required;
 * - par-cli: public, PAR required (require_pushed_authorization_requests);
 * - dpop-cli: public, dpop_bound_access_tokens.
 */
export async function startSecuredOidcProvider(options: SecuredOptions = {}): Promise<SecuredOidcProvider> {
  const dir = mkdtempSync(join(tmpdir(), 'oauthctl-secured-op-'));
  const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
  const stranger = keyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const kid = 'client-key-1';
  const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid, use: 'sig', alg: 'ES256' };
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const pem = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }) as string;

  const server: Server = options.tls ? createHttpsServer({ ...options.tls, requestCert: true, rejectUnauthorized: false }) : createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const peerCertificate = (ctx: { socket: TLSSocket }) => {
    const raw = ctx.socket.getPeerCertificate?.()?.raw;
    return raw ? new X509Certificate(raw) : undefined;
  };
  const redirect = { application_type: 'native', redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'native-cli', token_endpoint_auth_method: 'none', ...redirect },
      { client_id: 'web-app', client_secret: WEB_SECRET, ...redirect },
      { client_id: 'csjwt-app', client_secret: CSJWT_SECRET, token_endpoint_auth_method: 'client_secret_jwt', ...redirect },
      { client_id: 'pkjwt-cli', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] }, ...redirect },
      { client_id: 'jar-cli', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] }, require_signed_request_object: true, request_object_signing_alg: 'ES256', ...redirect },
      { client_id: 'par-cli', token_endpoint_auth_method: 'none', require_pushed_authorization_requests: true, ...redirect },
      { client_id: 'dpop-cli', token_endpoint_auth_method: 'none', dpop_bound_access_tokens: true, ...redirect },
      ...(options.tls
        ? [
            {
              client_id: 'mtls-cli',
              token_endpoint_auth_method: 'tls_client_auth',
              tls_client_auth_subject_dn: 'CN=oauthctl-test-client',
              tls_client_certificate_bound_access_tokens: true,
              ...redirect,
            },
          ]
        : []),
    ],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', ...(options.tls ? ['tls_client_auth'] : [])],
    features: {
      devInteractions: { enabled: true },
      ...(options.tls && {
        mTLS: {
          enabled: true,
          tlsClientAuth: true,
          certificateBoundAccessTokens: true,
          getCertificate: (ctx: { socket: TLSSocket }) => peerCertificate(ctx)?.toString(),
          certificateAuthorized: () => true,
          certificateSubjectMatches: (ctx: { socket: TLSSocket }, property: string, expected: string) => property === 'tls_client_auth_subject_dn' && peerCertificate(ctx)?.subject === expected,
        },
      }),
      pushedAuthorizationRequests: { enabled: true },
      dPoP: { enabled: true, ...(options.requireDpopNonce && { nonceSecret: Buffer.alloc(32, 7), requireNonce: () => true }) },
      requestObjects: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== RESOURCE) throw new Error('unknown resource');
          return { scope: 'photo', audience: RESOURCE, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    scopes: ['openid', 'offline_access', 'photo'],
    cookies: { keys: ['oauthctl-secured-interop-cookie-key'] },
  });
  provider.on('server_error', () => undefined);
  server.on('request', provider.callback());
  return {
    issuer,
    dir,
    signingKeyPem: write('client.pem', pem(privateKey)),
    signingKeyJwk: write('client.jwk.json', JSON.stringify({ ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid })),
    publicKeyPem: write('client.pub.pem', publicKey.export({ format: 'pem', type: 'spki' }) as string),
    strangerKeyPem: write('stranger.pem', pem(stranger)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(dir, { recursive: true, force: true });
      }),
  };
}
