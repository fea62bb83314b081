// Real peers: a resource server made with the official MCP TypeScript SDK (its bearer-auth middleware and
// metadata router) in front of the mock and in front of panva/oidc-provider (dynamic registration and
// resource indicators on); oauthctl starts from the resource. All on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type Router } from 'express';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import Provider from 'oidc-provider';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { runCli } from '../../daily/helpers/io.js';
import { homeEnv } from '../../helpers/cli.js';

type Verify = (token: string) => Promise<AuthInfo>;

/** An MCP-style resource server at {origin}/mcp: the SDK's metadata router and requireBearerAuth (scope photo, expectedResource). */
async function sdkResourceServer(): Promise<{ origin: string; mcp: string; attach(issuerMetadata: Record<string, unknown>, verify: Verify): void; close(): Promise<void> }> {
  const app = express();
  let inner: Router | undefined;
  app.use((req: Parameters<Router>[0], res: Parameters<Router>[1], next: () => void) => (inner ? inner(req, res, next) : next()));
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcp = `${origin}/mcp`;
  return {
    origin,
    mcp,
    attach(issuerMetadata, verify) {
      const router = express.Router();
      router.use(mcpAuthMetadataRouter({ oauthMetadata: issuerMetadata as never, resourceServerUrl: new URL(mcp), scopesSupported: ['photo'], resourceName: 'SDK test server' }));
      router.all(
        '/mcp',
        requireBearerAuth({
          verifier: { verifyAccessToken: verify },
          requiredScopes: ['photo'],
          resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcp)),
          expectedResource: new URL(mcp),
        }),
        (req, res) => void res.json({ ok: true, client: req.auth?.clientId, scopes: req.auth?.scopes }),
      );
      inner = router;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

let home: string;
let env: Record<string, string>;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-peers-'));
  env = homeEnv(home);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('an MCP SDK resource server in front of the mock', () => {
  let mock: MockServer;
  let rs: Awaited<ReturnType<typeof sdkResourceServer>>;
  beforeAll(async () => {
    rs = await sdkResourceServer();
    mock = await createMockServer({ resources: [rs.mcp] }, { autoLogin: 'alice' });
    const metadata = (await (await fetch(`${mock.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    // The resource server checks tokens by introspection, as the SDK's example server does.
    rs.attach(metadata, async (token) => {
      const r = await fetch(`${mock.authUrl}/introspect`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
        body: new URLSearchParams({ token }),
      });
      const info = (await r.json()) as { active: boolean; client_id: string; scope: string; exp: number; aud: string | string[] };
      if (!info.active) throw new (await import('@modelcontextprotocol/sdk/server/auth/errors.js')).InvalidTokenError('inactive');
      return { token, clientId: info.client_id, scopes: info.scope.split(' '), expiresAt: info.exp, resource: new URL([info.aud].flat()[0]!) };
    });
  });
  afterAll(async () => {
    await mock.close();
    await rs.close();
  });

  it('discover walks the chain; the SDK serving the server metadata on its own origin is no mismatch', async () => {
    const r = await runCli(['discover', rs.mcp], env);
    expect(r.stdout).toContain(`metadata from the 401's resource_metadata: ${rs.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(r.stdout).toContain(`==> Authorization server ${mock.issuer}`);
    expect(r.stdout).toContain('the chain holds');
    expect(r.code).toBe(0);
  });

  it('login --protected-resource registers, logs in with resource and the scope of the challenge; call then works', async () => {
    const r = await runCli(['login', '--protected-resource', rs.mcp, '--headless', '--username', 'alice', '--password', 'wonderland', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(decodeJwt((JSON.parse(r.stdout) as { access_token: string }).access_token)).toMatchObject({ aud: rs.mcp, scope: 'photo' });
    const call = await runCli(['call', rs.mcp], env);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ ok: true, scopes: ['photo'] });
    // A token of the same server for its own API is refused by the SDK's expectedResource check.
    const { access_token: other } = await mock.issueToken({ sub: 'alice', client_id: 'photo-cli', scope: 'photo' });
    expect((await fetch(rs.mcp, { headers: { authorization: `Bearer ${other}` } })).status).toBe(401);
  });
});

describe('an MCP SDK resource server in front of panva/oidc-provider (registration, resource indicators)', () => {
  let rs: Awaited<ReturnType<typeof sdkResourceServer>>;
  let op: Server;
  let issuer: string;
  beforeAll(async () => {
    rs = await sdkResourceServer();
    op = createServer();
    await new Promise<void>((r) => op.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(op.address() as AddressInfo).port}`;
    const provider = new Provider(issuer, {
      scopes: ['openid', 'offline_access', 'photo'],
      features: {
        devInteractions: { enabled: true },
        registration: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => rs.mcp,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            if (resource !== rs.mcp) throw new Error('unknown resource');
            return { scope: 'photo', audience: rs.mcp, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
          },
        },
      },
      cookies: { keys: ['oauthctl-interop-test-cookie-key'] },
    });
    provider.on('server_error', () => undefined);
    op.on('request', provider.callback());
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const jwks = createRemoteJWKSet(new URL(String(metadata.jwks_uri)));
    rs.attach(metadata, async (token) => {
      const { payload } = await jwtVerify(token, jwks, { issuer }).catch(async () => {
        throw new (await import('@modelcontextprotocol/sdk/server/auth/errors.js')).InvalidTokenError('invalid');
      });
      return { token, clientId: String(payload.client_id), scopes: String(payload.scope ?? '').split(' '), expiresAt: payload.exp!, resource: new URL([payload.aud].flat()[0]!) };
    });
  });
  afterAll(async () => {
    await rs.close();
    await new Promise<void>((r) => {
      op.close(() => r());
      op.closeAllConnections();
    });
  });

  it('login --protected-resource --register: registered at oidc-provider, a JWT for the resource, accepted by the SDK', async () => {
    const r = await runCli(['login', '--protected-resource', rs.mcp, '--register', '--headless', '--username', 'bob', '--password', 'anything', '--json', '--timeout', '15'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('registered client');
    const token = (JSON.parse(r.stdout) as { access_token: string }).access_token;
    expect(decodeJwt(token)).toMatchObject({ aud: rs.mcp, iss: issuer });
    const call = await runCli(['call', rs.mcp], env);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ ok: true });
  });
});
