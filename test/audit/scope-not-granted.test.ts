import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startOidcProvider, type OidcProviderServer } from './helpers/oidc-provider.js';

/** oidc-provider grants offline_access only with prompt=consent: without it the scope is dropped. */
let op: OidcProviderServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await op.close();
});

describe('a scope asked for and not granted', () => {
  it('login says on stderr, after the token response, that offline_access was dropped', async () => {
    const io = memoryIO();
    const code = await run(['login', '--issuer', op.issuer, '--client-id', 'native-cli', '--scope', 'openid offline_access', '--headless', '--username', 'bob', '--password', 'x', '--json'], io);
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).not.toHaveProperty('refresh_token');
    const err = io.err();
    const warning = err.indexOf('scope asked for but not granted: offline_access (the server granted "openid")');
    expect(warning).toBeGreaterThan(err.indexOf('==> Token response'));
    expect(err).toContain('some servers grant it only with --param prompt=consent');
  });

  it('nothing is said when every scope was granted', async () => {
    const io = memoryIO();
    const code = await run(
      ['login', '--issuer', op.issuer, '--client-id', 'native-cli', '--scope', 'openid offline_access', '--param', 'prompt=consent', '--headless', '--username', 'bob', '--password', 'x', '--json'],
      io,
    );
    expect(code).toBe(0);
    expect(io.err()).not.toContain('not granted');
  });

  it('audit: the refresh probe does not ask to add offline_access when it was asked for', async () => {
    const io = memoryIO();
    await run(['audit', '--issuer', op.issuer, '--client-id', 'native-cli', '--scope', 'openid offline_access', '--username', 'bob', '--password', 'x', '--only', 'refresh-rotation', '--json'], io);
    const report = JSON.parse(io.out()) as AuditReport;
    const probe = report.probes.find((p) => p.id === 'refresh-rotation');
    expect(probe?.status).toBe('skip');
    expect(probe?.detail).not.toContain('add offline_access to --scope');
    expect(probe?.detail).toContain('offline_access was asked for and not granted; some servers grant it only with --param prompt=consent');
  });
});
