// `oauthctl call URL` answering a resource's refusal as an MCP client does: a 401 whose challenge names
// the resource metadata starts the resource's login, a 403 insufficient_scope logs in again with the wider
// scope, --no-login turns both off. A resource on loopback in front of the mock (JWT access tokens).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

let mock: MockServer;
let server: Server;
let origin: string;
const seenScopes: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const prm = `${origin}/.well-known/oauth-protected-resource/api`;
    if (req.url === '/.well-known/oauth-protected-resource/api') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${origin}/api`, authorization_servers: [mock.issuer], scopes_supported: ['photo'] }));
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${prm}", scope="photo"` }).end();
      return;
    }
    const claims = decodeJwt(token) as { aud?: string; scope?: string };
    const scopes = (claims.scope ?? '').split(' ');
    seenScopes.push(claims.scope ?? '');
    if (claims.aud !== `${origin}/api`) {
      res.writeHead(401, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${prm}"` }).end();
      return;
    }
    if (req.url === '/api/write' && !scopes.includes('email')) {
      res.writeHead(403, { 'www-authenticate': `Bearer error="insufficient_scope", scope="photo email", resource_metadata="${prm}"` }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: req.url, scope: claims.scope }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock = await createMockServer({ resources: [`${origin}/api`] }, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock?.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('call logs in from the resource when it must', () => {
  it('a 401 with resource_metadata and no login: the resource login, then the call; the next call uses the cache', async () => {
    const home = mkdtempSync(join(tmpdir(), 'oauthctl-call-login-'));
    try {
      const env = homeEnv(home);
      const r = await runCli(['call', `${origin}/api`, '--headless'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, path: '/api' });
      expect(r.stderr).toContain('HTTP 401 with resource_metadata: logging in for the resource (RFC 9728 section 5.1)');
      expect(r.stderr).toContain(`resource=${origin}/api`);
      const again = await runCli(['call', `${origin}/api`], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toContain('Authorization request');

      // A 403 insufficient_scope: a new login asking for the wider scope, then the call again.
      const write = await runCli(['call', `${origin}/api/write`, '--headless'], { env });
      expect(write.code, write.stderr).toBe(0);
      expect(write.stderr).toContain('HTTP 403 insufficient_scope: it asks for "photo email"');
      expect(JSON.parse(write.stdout).scope.split(' ')).toEqual(expect.arrayContaining(['photo', 'email']));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('--no-login reports the 401; without a terminal or --headless no login starts either', async () => {
    const home = mkdtempSync(join(tmpdir(), 'oauthctl-call-nologin-'));
    try {
      const env = homeEnv(home);
      const off = await runCli(['call', `${origin}/api`, '--headless', '--no-login'], { env });
      expect(off.code).toBe(1);
      expect(off.stderr).toMatch(/no login is cached/);
      expect(off.stderr).not.toContain('Authorization request');
      const piped = await runCli(['call', `${origin}/api`], { env });
      expect(piped.code).toBe(1);
      expect(piped.stderr).toMatch(/no login is cached/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
