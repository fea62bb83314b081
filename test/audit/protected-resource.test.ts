// audit --protected-resource: each probe of the resource server passes against the mock and fails against
// a resource server weakened that one way (in front of the mock, checking tokens by introspection).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';

type Weakness = 'no-metadata-param' | 'wrong-resource' | 'broken-server' | 'no-audience' | 'no-scope' | 'query-token' | 'cached-introspection' | 'none';
const RESOURCE_PROBES = [
  'resource-401-metadata',
  'resource-metadata-match',
  'resource-authorization-servers',
  'resource-garbage-token',
  'resource-foreign-key',
  'resource-alg-none',
  'resource-other-issuer',
  'resource-audience',
  'resource-insufficient-scope',
  'resource-query-token',
  'resource-revoked-token',
];

let mock: MockServer;
let rs: Server;
let rsOrigin: string;
let weakness: Weakness = 'none';

/** A resource server at {rsOrigin}/api needing scope photo; the token checked by the mock's introspection, except where weakened. */
function resourceServer(): Server {
  const seen = new Map<string, Record<string, unknown>>();
  return createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', rsOrigin);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const resource = `${rsOrigin}/api`;
      const metadataUrl = `${rsOrigin}/.well-known/oauth-protected-resource/api`;
      if (url.pathname === '/.well-known/oauth-protected-resource/api') {
        return send(200, {
          resource: weakness === 'wrong-resource' ? 'https://other.example/api' : resource,
          authorization_servers: weakness === 'broken-server' ? [mock.issuer, 'http://127.0.0.1:9/nothing-here'] : [mock.issuer],
          scopes_supported: ['photo'],
        });
      }
      if (url.pathname !== '/api') return send(404, {});
      const challenge = (extra: string) => `Bearer ${extra}${weakness === 'no-metadata-param' ? '' : `${extra ? ', ' : ''}resource_metadata="${metadataUrl}"`}`;
      const header = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const token = header ?? (weakness === 'query-token' ? (url.searchParams.get('access_token') ?? undefined) : undefined);
      if (!token) return send(401, {}, { 'www-authenticate': challenge('') });
      let info = weakness === 'cached-introspection' ? seen.get(token) : undefined;
      if (!info) {
        const r = await fetch(`${mock.authUrl}/introspect`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
          body: new URLSearchParams({ token }),
        });
        info = (await r.json()) as Record<string, unknown>;
        if (info.active === true) seen.set(token, info);
      }
      const audOk = weakness === 'no-audience' || [info.aud].flat().includes(resource);
      if (info.active !== true || !audOk) return send(401, {}, { 'www-authenticate': challenge('error="invalid_token"') });
      if (
        weakness !== 'no-scope' &&
        !String(info.scope ?? '')
          .split(' ')
          .includes('photo')
      )
        return send(403, {}, { 'www-authenticate': challenge('error="insufficient_scope", scope="photo"') });
      send(200, { sub: info.sub });
    })();
  });
}

beforeAll(async () => {
  rs = resourceServer();
  await new Promise<void>((r) => rs.listen(0, '127.0.0.1', r));
  rsOrigin = `http://127.0.0.1:${(rs.address() as AddressInfo).port}`;
  // The mock knows the resource server as a resource indicator (RFC 8707), and /mcp as its own protected resource.
  mock = await createMockServer({ resources: [`${rsOrigin}/api`], protected_resources: [{ path: '/mcp', scopes: ['photo'] }] }, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
  await new Promise((r) => rs.close(r));
});

async function audit(resource: string, ...extra: string[]): Promise<{ code: number; report: AuditReport; stderr: string }> {
  const io = memoryIO();
  const code = await run(
    ['audit', '--protected-resource', resource, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--only', RESOURCE_PROBES.join(','), '--json', ...extra],
    io,
  );
  return { code, report: JSON.parse(io.out()) as AuditReport, stderr: io.err() };
}
const statuses = (report: AuditReport) => Object.fromEntries(report.probes.map((p) => [p.id, p.status]));

describe('audit --protected-resource', () => {
  it("every resource probe passes against the mock's protected resource", async () => {
    const { code, report } = await audit(`${mock.authUrl}/mcp`);
    expect(statuses(report), JSON.stringify(report.probes)).toEqual(Object.fromEntries(RESOURCE_PROBES.map((id) => [id, 'pass'])));
    expect(code).toBe(0);
  });

  it('every resource probe passes against a resource server that checks tokens by introspection', async () => {
    weakness = 'none';
    const { report } = await audit(`${rsOrigin}/api`);
    expect(statuses(report), JSON.stringify(report.probes)).toEqual(Object.fromEntries(RESOURCE_PROBES.map((id) => [id, 'pass'])));
  });

  const cases: [Weakness, string, string[]][] = [
    ['no-metadata-param', 'resource-401-metadata', []],
    ['wrong-resource', 'resource-metadata-match', []],
    ['broken-server', 'resource-authorization-servers', ['--issuer', '']],
    ['no-audience', 'resource-audience', []],
    ['no-scope', 'resource-insufficient-scope', []],
  ];
  for (const [weak, probe, extra] of cases) {
    it(`a resource server weakened (${weak}) fails ${probe}`, async () => {
      weakness = weak;
      const args = extra.map((a) => (a === '' ? mock.issuer : a));
      const { code, report, stderr } = await audit(`${rsOrigin}/api`, ...args);
      weakness = 'none';
      const result = report.probes.find((p) => p.id === probe);
      expect(result?.status, `${stderr}\n${JSON.stringify(report.probes)}`).toBe('fail');
      expect(code).toBe(1);
    });
  }

  it('a resource server that takes ?access_token= (RFC 6750 lets it) is warned about, not failed: it is no MCP server', async () => {
    weakness = 'query-token';
    const { report } = await audit(`${rsOrigin}/api`);
    weakness = 'none';
    expect(report.probes.find((p) => p.id === 'resource-query-token')?.status).toBe('warn');
  });

  it('a resource server that caches introspection keeps taking a revoked JWT: a warning with the time it stays good (the audit cannot tell it from one that validates JWTs itself)', async () => {
    weakness = 'cached-introspection';
    const { code, report } = await audit(`${rsOrigin}/api`);
    weakness = 'none';
    const result = report.probes.find((p) => p.id === 'resource-revoked-token')!;
    expect(result.status, JSON.stringify(result)).toBe('warn');
    expect(result.detail).toMatch(/cannot see a revocation, so it stays good for another \d+ s/);
    expect(code).toBe(0);
  });

  it('without --protected-resource the resource probes are not run', async () => {
    const io = memoryIO();
    await run(['audit', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--username', 'alice', '--password', 'wonderland', '--only', 'state', '--json'], io);
    const report = JSON.parse(io.out()) as AuditReport;
    expect(report.probes.some((p) => p.id.startsWith('resource-'))).toBe(false);
  });
});
