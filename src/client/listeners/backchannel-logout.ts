import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '../../http/server.js';
import type { JSONWebKeySet } from 'jose';
import { UsageError } from '../../errors.js';
import { logoutTokenProblems } from '../../oauth/logout-token.js';
import { verifyJwt } from '../responses/jwt-verify.js';

/** What `listen --backchannel` reports (CONTRACT.md): whether the token holds, its claims, and every rule it breaks. */
export interface LogoutTokenReport {
  valid: boolean;
  claims: Record<string, unknown>;
  problems: string[];
}

export interface LogoutTokenExpectations {
  jwks: JSONWebKeySet;
  jwksUri?: string | undefined;
  issuer: string;
  /** The relying party's client id: aud must hold it. Without it aud is only reported. */
  clientId?: string | undefined;
  nowMs: number;
}

/** Back-Channel Logout 1.0 section 2.6: the signature and iss, aud, iat, exp as for an ID token, then the logout token's own rules. */
export async function validateLogoutToken(token: string, expect: LogoutTokenExpectations): Promise<LogoutTokenReport> {
  let verification: Awaited<ReturnType<typeof verifyJwt>>;
  try {
    verification = await verifyJwt(token, expect.jwks, { jwksUri: expect.jwksUri, issuer: expect.issuer, audience: expect.clientId, nowMs: expect.nowMs });
  } catch {
    return { valid: false, claims: {}, problems: ['the logout_token is not a JWT (three base64url parts, JSON header and claims)'] };
  }
  const problems = verification.checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.detail}`);
  problems.push(...logoutTokenProblems(verification.header as Record<string, unknown>, verification.claims as Record<string, unknown>));
  return { valid: problems.length === 0, claims: verification.claims as Record<string, unknown>, problems };
}

const MAX_BODY_BYTES = 64 * 1024;

export interface BackchannelListener {
  url: string;
  /** The first logout token POSTed, validated; the sender got 200 when it held, else 400 (section 2.8). */
  waitForLogoutToken(signal?: AbortSignal): Promise<LogoutTokenReport>;
  close(): Promise<void>;
}

/**
 * A loopback endpoint for back-channel logout (section 2.5): POST application/x-www-form-urlencoded
 * with one logout_token. It answers 200 (Cache-Control: no-store) for a valid token, 400 with a JSON
 * error otherwise, and keeps the first token that arrives; other requests get 405 or 400 and are ignored.
 */
export async function startBackchannelListener(options: { port: number; path: string; validate: (token: string) => Promise<LogoutTokenReport> }): Promise<BackchannelListener> {
  let deliver: (report: LogoutTokenReport) => void = () => undefined;
  const first = new Promise<LogoutTokenReport>((resolve) => (deliver = resolve));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    if (new URL(req.url ?? '/', 'http://x').pathname !== options.path) return answer(404, { error: 'not_found' });
    if (req.method !== 'POST') return answer(405, { error: 'invalid_request', error_description: 'back-channel logout is a POST' });
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return answer(400, { error: 'invalid_request', error_description: 'the body must be a form' });
    const body = await readLimited(req);
    const values = body === undefined ? [] : new URLSearchParams(body).getAll('logout_token');
    if (values.length !== 1) return answer(400, { error: 'invalid_request', error_description: 'send exactly one logout_token' });
    const report = await options.validate(values[0]!);
    if (report.valid) answer(200, {});
    else answer(400, { error: 'invalid_request', error_description: report.problems.join('; ') });
    deliver(report);
  }
  const listening = await listen((req, res) => void handle(req, res), { port: options.port }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'EADDRINUSE' ? new UsageError(`port ${options.port} on 127.0.0.1 is already in use`, 'choose another --port, or leave it out for a free one') : err;
  });
  return {
    url: `${listening.url}${options.path}`,
    waitForLogoutToken: (signal) =>
      new Promise((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        void first.then(resolve);
      }),
    close: () => listening.close(),
  };
}

function readLimited(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
