import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OidcProviderServer {
  issuer: string;
  close(): Promise<void>;
}

/**
 * panva/oidc-provider 9 in-process with its development interactions (a login form with `login` and
 * `password` fields that accepts any account, then a consent page with a Continue button and a
 * Cancel link). Two clients: a public native one (PKCE) and a confidential web one; and, with the
 * device flow and client credentials switched on, a public device client and a confidential service.
 * `accounts` limits the accounts that exist (by default any login is one).
 */
export async function startOidcProvider(options: { accounts?: readonly string[] } = {}): Promise<OidcProviderServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'native-cli',
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      {
        client_id: 'web-app',
        client_secret: 'web-app-secret-0123456789abcdef0123456789abcdef',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      {
        client_id: 'tv-app',
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: [],
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        response_types: [],
      },
      {
        client_id: 'service',
        client_secret: 'service-secret-0123456789abcdef0123456789abcdef',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
      },
    ],
    scopes: ['openid', 'offline_access', 'photo'],
    features: { devInteractions: { enabled: true }, deviceFlow: { enabled: true }, clientCredentials: { enabled: true } },
    cookies: { keys: ['oauthctl-interop-test-cookie-key'] },
    // With `accounts`, a login with any other account name finds no account (a wrong login).
    ...(options.accounts ? { findAccount: (_ctx: unknown, sub: string) => (options.accounts?.includes(sub) ? { accountId: sub, claims: () => ({ sub }) } : undefined) } : {}),
  });
  // Development warnings about the in-memory adapter and dev interactions are expected here.
  provider.on('server_error', () => undefined);
  server.on('request', provider.callback());
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
