// Interop for CIBA (OpenID Connect CIBA Core 1.0): `login --ciba` against panva/oidc-provider 9 in-process
// (poll mode; its ping mode takes only an https notification endpoint), and openid-client 6's CIBA
// functions against the mock.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import Provider from 'oidc-provider';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { CIBA_GRANT } from '../../../src/oauth/ciba.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

/** What the test uses of oidc-provider's CIBA API (the package ships no type declarations). */
interface CibaProvider {
  Grant: new (init: { clientId: string; accountId: string }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
  backchannelResult(request: unknown, result: unknown): Promise<void>;
}
interface CibaRequest {
  params?: Record<string, unknown>;
}

const SECRET = 'ciba-app-secret-0123456789abcdef0123456789abcdef';

let server: Server;
let issuer: string;
let home: string;
let env: Record<string, string>;
/** Each backchannel authentication request oidc-provider passed to the authentication device: its user and binding message. */
const triggered: { bindingMessage?: string; account: string }[] = [];

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { errors } = (await import('oidc-provider')) as unknown as { errors: { AccessDenied: new (description: string) => unknown } };
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'ciba-app', client_secret: SECRET, grant_types: [CIBA_GRANT], response_types: [], redirect_uris: [], backchannel_token_delivery_mode: 'poll' }],
    scopes: ['openid', 'offline_access'],
    cookies: { keys: ['oauthctl-interop-ciba-cookie-key'] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      ciba: {
        enabled: true,
        deliveryModes: ['poll'],
        processLoginHint: (_ctx: unknown, loginHint: string) => (loginHint === 'bob' || loginHint === 'carol' ? loginHint : undefined),
        verifyUserCode: () => undefined,
        validateRequestContext: () => undefined,
        // The user's authentication device, played here: bob approves, carol refuses, through the provider's API.
        triggerAuthenticationDevice: (_ctx: unknown, request: CibaRequest, account: { accountId: string }, client: { clientId: string }) => {
          triggered.push({ account: account.accountId, ...(request.params?.binding_message ? { bindingMessage: String(request.params.binding_message) } : {}) });
          setImmediate(() => {
            void (async () => {
              const op = provider as unknown as CibaProvider;
              if (account.accountId === 'carol') return op.backchannelResult(request, new errors.AccessDenied('carol said no'));
              const grant = new op.Grant({ clientId: client.clientId, accountId: account.accountId });
              grant.addOIDCScope('openid');
              await grant.save();
              await op.backchannelResult(request, grant);
            })();
          });
        },
      },
    },
  });
  provider.on('server_error', () => undefined);
  server.on('request', provider.callback());
  home = mkdtempSync(join(tmpdir(), 'oauthctl-interop-ciba-'));
  env = homeEnv(home);
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  rmSync(home, { recursive: true, force: true });
});

describe('interop: login --ciba against oidc-provider', () => {
  it('poll mode: its backchannel endpoint from discovery, the binding message, the ID token checked', async () => {
    const r = await runCli(
      ['login', '--ciba', '--login-hint', 'bob', '--binding-message', 'Order-42', '--issuer', issuer, '--client-id', 'ciba-app', '--client-secret', SECRET, '--timeout', '60', '--json'],
      { env },
    );
    expect(r.stderr).toContain(`POST ${issuer}/backchannel`);
    expect(r.stderr).toMatch(/✓ signature: RS256 signature valid/);
    expect(r.code).toBe(0);
    expect(decodeJwt(String((JSON.parse(r.stdout) as Record<string, unknown>).id_token))).toMatchObject({ sub: 'bob', aud: 'ciba-app' });
    expect(triggered).toContainEqual({ account: 'bob', bindingMessage: 'Order-42' });
  }, 60_000);

  it('a refusal is access_denied, an unknown user is refused: each in one line, exit 1', async () => {
    const denied = await runCli(['login', '--ciba', '--login-hint', 'carol', '--issuer', issuer, '--client-id', 'ciba-app', '--client-secret', SECRET, '--timeout', '60'], { env });
    expect(denied.code).toBe(1);
    expect(denied.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: the authorization server answered access_denied(: .*)? \(the user refused the request on the authentication device\)$/);
    const unknown = await runCli(['login', '--ciba', '--login-hint', 'mallory', '--issuer', issuer, '--client-id', 'ciba-app', '--client-secret', SECRET], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: the backchannel authentication request was refused: (unknown_user_id|invalid_request): /);
  }, 60_000);
});

describe('interop: openid-client 6 CIBA against the mock', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer({ device_interval: 1 });
  });
  afterAll(() => mock.close());

  it('initiateBackchannelAuthentication, then pollBackchannelAuthenticationGrant until the admin API approves', async () => {
    const config = await oidc.discovery(new URL(mock.issuer), 'photo-web', 'photo-web-secret', undefined, { execute: [oidc.allowInsecureRequests] });
    expect(config.serverMetadata().backchannel_authentication_endpoint).toBe(`${mock.issuer}/backchannel`);
    const ack = await oidc.initiateBackchannelAuthentication(config, { scope: 'openid offline_access', login_hint: 'alice', binding_message: 'W4SCT' });
    expect(ack.interval).toBe(1);
    const polling = oidc.pollBackchannelAuthenticationGrant(config, ack);
    mock.decideCiba({ auth_req_id: ack.auth_req_id, action: 'approve' });
    const tokens = await polling;
    expect(tokens.claims()).toMatchObject({ sub: 'alice', aud: 'photo-web', iss: mock.issuer });
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it('a refusal reaches openid-client as access_denied, an unknown user as unknown_user_id', async () => {
    const config = await oidc.discovery(new URL(mock.issuer), 'photo-web', 'photo-web-secret', undefined, { execute: [oidc.allowInsecureRequests] });
    const ack = await oidc.initiateBackchannelAuthentication(config, { scope: 'openid', login_hint: 'alice' });
    mock.decideCiba({ auth_req_id: ack.auth_req_id, action: 'deny' });
    await expect(oidc.pollBackchannelAuthenticationGrant(config, ack)).rejects.toMatchObject({ error: 'access_denied' });
    await expect(oidc.initiateBackchannelAuthentication(config, { scope: 'openid', login_hint: 'nobody' })).rejects.toMatchObject({ error: 'unknown_user_id' });
  });
});
