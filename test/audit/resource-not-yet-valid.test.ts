// resource-not-yet-valid: a token whose nbf is an hour ahead, signed by the mock through its admin API
// (POST /_mock/tokens), is refused. The mock's API and MCP endpoint refuse it (pass); a resource server
// that verifies the mock's JWTs with jose but a two-hour clock leeway takes it (fail); with the admin
// API off the audit cannot get such a token (not tested, saying why). All real HTTP on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from '../helpers/io.js';

let mock: MockServer;
let closed: MockServer;
let rs: Server;
let rsUrl: string;

/** A resource server that checks signature, issuer and audience, but forgives two hours of clock skew. */
function lenientServer(): Server {
  return createServer((req, res) => {
    void (async () => {
      const send = (status: number, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{}');
      const metadata = `${new URL(rsUrl).origin}/.well-known/oauth-protected-resource/api`;
      if (req.url === '/.well-known/oauth-protected-resource/api')
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: rsUrl, authorization_servers: [mock.issuer], scopes_supported: ['photo'] }));
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token) return send(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` });
      try {
        await jwtVerify(token, createRemoteJWKSet(new URL(`${mock.issuer}/jwks`)), { issuer: mock.issuer, audience: rsUrl, clockTolerance: 7200 });
        send(200);
      } catch {
        send(401, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadata}"` });
      }
    })();
  });
}

beforeAll(async () => {
  rs = lenientServer();
  await new Promise<void>((r) => rs.listen(0, '127.0.0.1', r));
  rsUrl = `http://127.0.0.1:${(rs.address() as AddressInfo).port}/api`;
  mock = await createMockServer({ resources: [rsUrl] }, { autoLogin: 'alice' });
  closed = await createMockServer({}, { autoLogin: 'alice', admin: false });
});
afterAll(async () => {
  await Promise.all([mock.close(), closed.close()]);
  await new Promise((r) => rs.close(r));
});

async function probe(resource: string): Promise<{ code: number; status: string; detail: string }> {
  const io = memoryIO();
  const code = await run(['audit', '--protected-resource', resource, '--client-id', 'photo-cli', '--only', 'resource-not-yet-valid', '--json'], io);
  const found = (JSON.parse(io.out()) as AuditReport).probes.find((p) => p.id === 'resource-not-yet-valid');
  if (!found) throw new Error(`${io.out()} ${io.err()}`);
  return { code, ...found };
}

describe('resource-not-yet-valid', () => {
  it("the mock's API and MCP endpoint refuse a token whose nbf is an hour ahead", async () => {
    for (const url of [mock.baseUrl, `${mock.baseUrl}/mcp`]) {
      const r = await probe(url);
      expect(r.status, `${url} ${r.detail}`).toBe('pass');
      expect(r.detail).toMatch(/^a token whose nbf is 60 minutes ahead: HTTP 401 invalid_token/);
    }
  });

  it('a resource that forgives two hours of clock skew takes it: fail, exit 1', async () => {
    const r = await probe(rsUrl);
    expect(r.status, r.detail).toBe('fail');
    expect(r.detail).toMatch(/^a token whose nbf is 60 minutes ahead was accepted \(HTTP 200\)/);
    expect(r.code).toBe(1);
  });

  it('no admin API to ask for such a token: not tested, saying why', async () => {
    const r = await probe(closed.baseUrl);
    expect(r.status).toBe('skip');
    expect(r.detail).toMatch(
      /^not tested: only the authorization server can sign a token whose nbf is in the future, and it has no serve-mock admin API to ask for one \(GET .*\/_mock\/clock: HTTP 404\)$/,
    );
  });
});
