// Interop: the device flow and client credentials against panva/oidc-provider 9 in-process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProviderServer } from '../../audit/helpers/oidc-provider.js';
import { runCli } from '../../daily/helpers/io.js';
import { homeEnv } from '../../helpers/cli.js';

let op: OidcProviderServer;
let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  op = await startOidcProvider();
  home = mkdtempSync(join(tmpdir(), 'oauthctl-interop-'));
  env = homeEnv(home);
});
afterAll(async () => {
  await op?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('interop with oidc-provider: device flow and client credentials', () => {
  it('login --device --headless: its confirmation, login and consent pages, polling, the ID token checked', async () => {
    const r = await runCli(
      ['login', '--device', '--issuer', op.issuer, '--client-id', 'tv-app', '--scope', 'openid', '--headless', '--username', 'bob', '--password', 'anything', '--timeout', '60', '--json'],
      env,
    );
    expect(r.stderr).toMatch(/enter the code:\n\n {4}[A-Z]{4}-[A-Z]{4}\n/);
    expect(r.stderr).toMatch(/✓ signature: RS256 signature valid/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ token_type: 'Bearer', scope: 'openid' });
    const userinfo = await runCli(['userinfo', '--issuer', op.issuer, '--client-id', 'tv-app', '--json'], env);
    expect(JSON.parse(userinfo.stdout)).toMatchObject({ sub: 'bob' });
  }, 60_000);

  it('client-credentials with client_secret_basic; the token is live at its introspection endpoint', async () => {
    const secret = 'service-secret-0123456789abcdef0123456789abcdef';
    const r = await runCli(['client-credentials', '--issuer', op.issuer, '--client-id', 'service', '--client-secret', secret, '--json'], env);
    expect(r.code).toBe(0);
    const tokens = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer' });
    expect(tokens.refresh_token).toBeUndefined();
    const denied = await runCli(['client-credentials', '--issuer', op.issuer, '--client-id', 'native-cli'], env);
    expect(denied.code).toBe(1);
    expect(denied.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: (unauthorized_client|invalid_client|invalid_request): /);
  });
});
