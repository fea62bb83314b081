// resource-metadata-location: the protected resource metadata is where a client looks (RFC 9728 sections
// 3.1 and 5.1; MCP authorization: the 401's resource_metadata, then path-inserted, then the root). Small
// resource servers on loopback serve it at one place each; the mock's API serves it path-inserted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../helpers/io.js';

type Place = 'path' | 'root' | 'challenge' | 'nowhere';
let mock: MockServer;
const servers = new Map<Place, { server: Server; url: string }>();

/** A resource at /api whose metadata is at `place` only (`challenge`: an unlisted URL its 401 names). */
function resourceServer(place: Place): Server {
  return createServer((req, res) => {
    const url = servers.get(place)!.url;
    const origin = new URL(url).origin;
    const where = { path: '/.well-known/oauth-protected-resource/api', root: '/.well-known/oauth-protected-resource', challenge: '/meta/api.json', nowhere: '' }[place];
    if (where !== '' && req.url === where) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: url, authorization_servers: [mock.issuer] }));
    if (req.url === '/api') return res.writeHead(401, { 'www-authenticate': place === 'challenge' ? `Bearer resource_metadata="${origin}${where}"` : 'Bearer' }).end();
    res.writeHead(404).end();
  });
}

beforeAll(async () => {
  for (const place of ['path', 'root', 'challenge', 'nowhere'] as const) {
    const server = resourceServer(place);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.set(place, { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` });
  }
  mock = await createMockServer({}, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
  await Promise.all([...servers.values()].map(({ server }) => new Promise((r) => server.close(r))));
});

async function probe(resource: string): Promise<{ code: number; status: string; detail: string }> {
  const io = memoryIO();
  const code = await run(['audit', '--protected-resource', resource, '--issuer', mock.issuer, '--client-id', 'photo-cli', '--only', 'resource-metadata-location', '--json'], io);
  const found = (JSON.parse(io.out()) as AuditReport).probes.find((p) => p.id === 'resource-metadata-location');
  if (!found) throw new Error(`${io.out()} ${io.err()}`);
  return { code, ...found };
}

describe('resource-metadata-location', () => {
  it('served at one well-known location only: passes, saying which', async () => {
    const path = await probe(servers.get('path')!.url);
    expect(path.status, path.detail).toBe('pass');
    expect(path.detail).toMatch(/^served at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/api \(path-inserted\); not at .* \(root\): HTTP 404/);
    const root = await probe(servers.get('root')!.url);
    expect(root.status, root.detail).toBe('pass');
    expect(root.detail).toMatch(/^served at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource \(root\); not at .*\/api \(path-inserted\): HTTP 404/);
  });

  it('at neither well-known location but named in the 401: passes, naming it', async () => {
    const r = await probe(servers.get('challenge')!.url);
    expect(r.status, r.detail).toBe('pass');
    expect(r.detail).toMatch(/the 401's resource_metadata names http:\/\/127\.0\.0\.1:\d+\/meta\/api\.json/);
  });

  it('nowhere a client looks: fails, exit 1', async () => {
    const r = await probe(servers.get('nowhere')!.url);
    expect(r.status, r.detail).toBe('fail');
    expect(r.detail).toMatch(/^no metadata for .* where a client looks: .*\(path-inserted\): HTTP 404; .*\(root\): HTTP 404; the 401 names none$/);
    expect(r.code).toBe(1);
  });

  it("the mock's API and MCP endpoint serve it path-inserted", async () => {
    for (const url of [mock.baseUrl, `${mock.baseUrl}/mcp`]) {
      const r = await probe(url);
      expect(r.status, r.detail).toBe('pass');
      expect(r.detail).toMatch(/\(path-inserted\)/);
    }
  });
});
