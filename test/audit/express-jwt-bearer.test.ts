// audit --protected-resource on an Express 5 API protected by express-oauth2-jwt-bearer, in front of the
// mock as authorization server: configured right (issuer, audience, scope), with the audience check
// turned off (validators.aud false), and trusting whatever issuer a token names (a multi-issuer resolver
// that reads the token's iss). Each broken one fails the probe named for its fault (exit 1); the right one
// passes (exit 0). All real HTTP on loopback, the servers started once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler, type NextFunction, type Request, type Response } from 'express';
import { auth, requiredScopes } from 'express-oauth2-jwt-bearer';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { auditResource, failed, statuses } from './helpers/resource-audit.js';

type Variant = 'correct' | 'no-audience' | 'any-issuer';
const VARIANTS: readonly Variant[] = ['correct', 'no-audience', 'any-issuer'];

interface Api {
  url: string;
  attach(issuer: string): void;
  close(): Promise<void>;
}

/**
 * GET /api needs a JWT access token with scope photo; its metadata (RFC 9728) at the path-inserted
 * well-known URL, and resource_metadata added to the library's challenges (section 5.1).
 */
async function expressApi(variant: Variant): Promise<Api> {
  const app = express();
  const router = express.Router();
  app.use(router);
  let protect: RequestHandler[] = [];
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/api`;
  const metadataUrl = `${origin}/.well-known/oauth-protected-resource/api`;
  let issuerUrl = '';
  router.get('/.well-known/oauth-protected-resource/api', (_req: Request, res: Response) => void res.json({ resource: url, authorization_servers: [issuerUrl], scopes_supported: ['photo'] }));
  router.get('/api', (req: Request, res: Response, next: NextFunction) => {
    const chain = [...protect];
    const step = (err?: unknown): void => {
      if (err !== undefined) return next(err);
      const handler = chain.shift();
      if (handler) return void handler(req, res, step);
      res.json({ sub: (req as unknown as { auth?: { payload: { sub?: string } } }).auth?.payload.sub });
    };
    step();
  });
  app.use((err: { status?: number; headers?: Record<string, string>; code?: string; message: string }, _req: Request, res: Response, _next: NextFunction) => {
    const challenge = err.headers?.['WWW-Authenticate'] ?? 'Bearer';
    res
      .status(err.status ?? 500)
      .set('WWW-Authenticate', `${challenge}${challenge.includes(' ') ? ',' : ''} resource_metadata="${metadataUrl}"`)
      .json({ error: err.code ?? 'server_error' });
  });
  const attach = (issuer: string) => {
    issuerUrl = issuer;
    const verify =
      variant === 'any-issuer'
        ? // The fault: a multi-issuer resolver that trusts the issuer the token itself names.
          auth({ audience: url, mcd: { issuers: ({ headers }) => [String(decodeJwt(String(headers.authorization ?? '').replace(/^Bearer /, '')).iss)] } })
        : auth({ issuerBaseURL: issuer, audience: url, ...(variant === 'no-audience' && { validators: { aud: false } }) });
    protect = [verify, requiredScopes('photo')];
  };
  return {
    url,
    attach,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const audit = (resource: string) => auditResource(resource);

describe('audit --protected-resource on an Express API protected by express-oauth2-jwt-bearer', () => {
  let mock: MockServer;
  const apis = new Map<Variant, Api>();
  beforeAll(async () => {
    for (const v of VARIANTS) apis.set(v, await expressApi(v));
    mock = await createMockServer({ resources: [...apis.values()].map((a) => a.url) }, { autoLogin: 'alice' });
    for (const a of apis.values()) a.attach(mock.issuer);
  });
  afterAll(async () => {
    await mock.close();
    await Promise.all([...apis.values()].map((a) => a.close()));
  });

  it('configured right: no probe fails, exit 0', async () => {
    const { code, report, stderr } = await audit(apis.get('correct')!.url);
    expect(failed(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual([]);
    const byId = statuses(report);
    for (const id of [
      'resource-401-metadata',
      'resource-metadata-match',
      'resource-garbage-token',
      'resource-foreign-key',
      'resource-alg-none',
      'resource-other-issuer',
      'resource-audience',
      'resource-insufficient-scope',
    ])
      expect(byId[id], id).toBe('pass');
    // The library takes ?access_token= too (RFC 6750 lets it): a warning, not a failure, for an API that is no MCP server.
    expect(byId['resource-query-token']).toBe('warn');
    expect(code).toBe(0);
  });

  it('the audience check turned off: resource-audience fails, exit 1', async () => {
    const { code, report, stderr } = await audit(apis.get('no-audience')!.url);
    expect(failed(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual(['resource-audience']);
    expect(code).toBe(1);
  });

  it("trusting the issuer a token names: resource-other-issuer fails (the audit's own issuer on loopback was asked for its keys), exit 1", async () => {
    const { code, report, stderr } = await audit(apis.get('any-issuer')!.url);
    expect(failed(report), `${stderr}\n${JSON.stringify(report.probes)}`).toEqual(['resource-other-issuer']);
    expect(report.probes.find((p) => p.id === 'resource-other-issuer')!.detail).toContain('the resource fetched');
    expect(code).toBe(1);
  });
});
