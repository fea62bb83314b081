// The resource's DPoP checks (RFC 9449 section 7.1): a DPoP-bound token from the mock, presented as Bearer,
// with a proof for another URL, another method, a wrong ath, and a proof sent twice. The mock's own API
// and MCP endpoint pass; a resource server that introspects the token at the mock but ignores the proof
// fails each probe named for that fault and warns about the replay. All real HTTP on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../helpers/io.js';

const DPOP_PROBES = ['resource-dpop-as-bearer', 'resource-dpop-htu', 'resource-dpop-htm', 'resource-dpop-ath', 'resource-dpop-replay'];

let mock: MockServer;
let rs: Server;
let rsUrl: string;
let plain: Server;
let plainUrl: string;

/** A resource server that says it takes DPoP and asks the mock's introspection about the token, but never looks at the proof. */
function proofBlindServer(dpop: boolean): Server {
  return createServer((req, res) => {
    void (async () => {
      const url = dpop ? rsUrl : plainUrl;
      const metadata = `${new URL(url).origin}/.well-known/oauth-protected-resource/api`;
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (req.url === '/.well-known/oauth-protected-resource/api')
        return send(200, { resource: url, authorization_servers: [mock.issuer], scopes_supported: ['photo'], ...(dpop && { dpop_signing_alg_values_supported: ['ES256'] }) });
      const token = /^(?:Bearer|DPoP) (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!token) return send(401, {}, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` });
      const r = await fetch(`${mock.authUrl}/introspect`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
        body: new URLSearchParams({ token }),
      });
      const info = (await r.json()) as Record<string, unknown>;
      if (info.active !== true) return send(401, {}, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadata}"` });
      send(200, { sub: info.sub });
    })();
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

beforeAll(async () => {
  rs = proofBlindServer(true);
  plain = proofBlindServer(false);
  rsUrl = await listen(rs);
  plainUrl = await listen(plain);
  mock = await createMockServer({ resources: [rsUrl, plainUrl] }, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
  await Promise.all([rs, plain].map((s) => new Promise((r) => s.close(r))));
});

async function audit(resource: string): Promise<{ code: number; byId: Record<string, { status: string; detail: string }>; text: string }> {
  const io = memoryIO();
  const code = await run(['audit', '--protected-resource', resource, '--client-id', 'photo-cli', '--only', DPOP_PROBES.join(','), '--json'], io);
  const report = JSON.parse(io.out()) as AuditReport;
  return { code, byId: Object.fromEntries(report.probes.map((p) => [p.id, { status: p.status, detail: p.detail }])), text: `${io.err()}\n${io.out()}` };
}

describe('resource DPoP probes', () => {
  it("the mock's API and its MCP endpoint refuse every bad presentation and a replayed proof: all pass, exit 0", async () => {
    for (const url of [mock.baseUrl, `${mock.baseUrl}/mcp`]) {
      const { code, byId, text } = await audit(url);
      for (const id of DPOP_PROBES) expect(byId[id]?.status, `${url} ${id}\n${text}`).toBe('pass');
      expect(byId['resource-dpop-as-bearer']!.detail).toMatch(/HTTP 401/);
      expect(code).toBe(0);
    }
  });

  it('a resource that introspects the token but ignores the proof fails as-bearer, htu, htm and ath, and warns about the replay (exit 1)', async () => {
    const { code, byId, text } = await audit(rsUrl);
    for (const id of ['resource-dpop-as-bearer', 'resource-dpop-htu', 'resource-dpop-htm', 'resource-dpop-ath']) expect(byId[id]?.status, `${id}\n${text}`).toBe('fail');
    expect(byId['resource-dpop-as-bearer']!.detail).toMatch(/sent as Bearer, without a proof was accepted \(HTTP 200\)/);
    expect(byId['resource-dpop-replay']).toMatchObject({ status: 'warn', detail: expect.stringMatching(/accepted twice/) });
    expect(code).toBe(1);
  });

  it('a resource that does not take DPoP: not tested, saying why', async () => {
    const { byId } = await audit(plainUrl);
    for (const id of DPOP_PROBES) {
      expect(byId[id]?.status).toBe('skip');
      expect(byId[id]?.detail).toMatch(/^not tested: the resource does not take DPoP/);
    }
  });
});
