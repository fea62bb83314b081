import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { PROBES } from '../../src/audit/probes/index.js';
import type { AuditReport } from '../../src/audit/types.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startWeakeningProxy, type SessionWeakness } from './helpers/weakening-proxy.js';

const SESSION_PROBES = ['post-logout-redirect-exact', 'prompt-none-login-required', 'max-age-reauth', 'id-token-hint-other-user'];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function mock(): Promise<MockServer> {
  const server = await createMockServer();
  closers.push(() => server.close());
  return server;
}

async function audit(authUrl: string): Promise<Record<string, { status: string; detail: string }>> {
  const io = memoryIO();
  await run(['audit', '--auth-url', authUrl, '--client-id', 'photo-cli', '--scope', 'openid photo', '--username', 'alice', '--password', 'wonderland', '--json'], io);
  const report = JSON.parse(io.out()) as AuditReport;
  return Object.fromEntries(report.probes.filter((p) => SESSION_PROBES.includes(p.id)).map((p) => [p.id, { status: p.status, detail: p.detail }]));
}

describe('the session probes', () => {
  it('are registered in the sessions category with a threat and a remedy', () => {
    for (const id of SESSION_PROBES) {
      const probe = PROBES.find((p) => p.id === id);
      expect(probe, id).toBeDefined();
      expect(probe).toMatchObject({ category: 'sessions', threat: expect.any(String), remedy: expect.any(String) });
    }
  });

  it('pass against the mock', async () => {
    const server = await mock();
    const byId = await audit(server.authUrl);
    for (const id of SESSION_PROBES) expect(byId[id], `${id}: ${byId[id]?.detail}`).toMatchObject({ status: 'pass' });
  }, 60_000);

  it.each([
    ['open-post-logout-redirect', 'post-logout-redirect-exact', /redirected to the unregistered/],
    ['ignore-prompt', 'prompt-none-login-required', /must not show a page/],
    ['ignore-max-age', 'max-age-reauth', /auth_time stayed/],
    ['ignore-id-token-hint', 'id-token-hint-other-user', /a code was issued/],
  ] as const)(
    'a server weakened by %s fails %s',
    async (weakness, id, detail) => {
      const server = await mock();
      const proxy = await startWeakeningProxy(server.authUrl, weakness as SessionWeakness);
      closers.push(proxy.close);
      const byId = await audit(proxy.url);
      expect(byId[id]?.status, byId[id]?.detail).toBe('fail');
      expect(byId[id]?.detail).toMatch(detail);
    },
    60_000,
  );

  it('skip, saying why, when the server has no end_session_endpoint', async () => {
    const server = await mock();
    server.enqueue({ endpoint: 'metadata', status: 404, times: 4 });
    const byId = await audit(server.authUrl);
    for (const id of SESSION_PROBES) expect(byId[id]?.detail ?? '', id).toMatch(/no end_session_endpoint/);
  }, 60_000);
});
