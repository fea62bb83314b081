import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleMe, handlePhotos, handleUserinfo } from './api.js';
import { handleAuthorize } from './authorize.js';
import { handleJwks, handleMetadata } from './discovery.js';
import { HttpError, sendJson, type Exchange, type LogFields, type MockState } from './http.js';
import { handleConsent, handleConsentPage, handleLogin } from './interaction.js';
import { handleIntrospect, handleRevoke } from './introspection.js';
import { STYLESHEET, STYLESHEET_PATH } from './pages.js';
import { handleToken } from './token.js';

type Handler = (ex: Exchange) => void | Promise<void>;

/** One request, as the log shows it: `--json` prints these as JSON lines. */
export interface MockLogEntry {
  time: string;
  method: string;
  path: string;
  status: number;
  client_id?: string;
  outcome: string;
  error?: string;
  error_description?: string;
  duration_ms: number;
}

function handleStylesheet(ex: Exchange): void {
  ex.log.outcome = 'ok';
  ex.res.writeHead(200, { 'Content-Type': 'text/css; charset=utf-8', 'Content-Length': Buffer.byteLength(STYLESHEET), 'Cache-Control': 'max-age=3600', 'X-Content-Type-Options': 'nosniff' });
  ex.res.end(STYLESHEET);
}

function handleIndex(ex: Exchange): void {
  ex.log.outcome = 'ok';
  const { issuer, baseUrl } = ex.state;
  sendJson(ex.res, 200, {
    name: 'oauthctl mock authorization server',
    issuer,
    metadata: `${issuer}/.well-known/oauth-authorization-server`,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    api: [`${baseUrl}/photos`, `${baseUrl}/me`],
  });
}

/** Path -> method -> handler. */
function routes(): Map<string, Partial<Record<string, Handler>>> {
  return new Map<string, Partial<Record<string, Handler>>>([
    ['/', { GET: handleIndex }],
    ['/authorize', { GET: handleAuthorize }],
    ['/login', { POST: handleLogin }],
    ['/consent', { GET: handleConsentPage, POST: handleConsent }],
    ['/token', { POST: handleToken }],
    ['/userinfo', { GET: handleUserinfo, POST: handleUserinfo }],
    ['/introspect', { POST: handleIntrospect }],
    ['/revoke', { POST: handleRevoke }],
    ['/jwks', { GET: handleJwks }],
    ['/.well-known/oauth-authorization-server', { GET: handleMetadata }],
    ['/.well-known/openid-configuration', { GET: handleMetadata }],
    ['/api/photos', { GET: handlePhotos }],
    ['/api/me', { GET: handleMe }],
    [STYLESHEET_PATH, { GET: handleStylesheet }],
  ]);
}

/**
 * The request listener: routes, catches every error (a bad request gets a 4xx, never a crash), and
 * logs one entry per request.
 */
export function createRequestListener(state: MockState, log?: (entry: MockLogEntry) => void): (req: IncomingMessage, res: ServerResponse) => void {
  const table = routes();
  return (req, res) => {
    const started = log ? performance.now() : 0;
    const fields: LogFields = {};
    let path = '/';
    const done = () => {
      if (!log) return;
      const entry: MockLogEntry = { time: new Date().toISOString(), method: req.method ?? '?', path, status: res.statusCode, outcome: fields.outcome ?? (res.statusCode < 400 ? 'ok' : 'refused'), duration_ms: Math.round((performance.now() - started) * 100) / 100 };
      if (fields.clientId !== undefined) entry.client_id = fields.clientId;
      if (fields.error !== undefined) entry.error = fields.error;
      if (fields.errorDescription !== undefined) entry.error_description = fields.errorDescription;
      log(entry);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://mock.invalid');
      path = url.pathname;
    } catch {
      fields.error = 'invalid_request';
      sendJson(res, 400, { error: 'invalid_request', error_description: 'the request target is not a valid URL path' });
      return done();
    }
    const ex: Exchange = { req, res, url, state, log: fields };
    const entry = table.get(url.pathname);
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');
    const handler = entry?.[method];
    if (!handler) {
      if (entry) {
        const allow = Object.keys(entry).join(', ');
        fields.error = 'invalid_request';
        fields.errorDescription = `method ${req.method} not allowed`;
        sendJson(res, 405, { error: 'invalid_request', error_description: `${url.pathname} accepts ${allow} only` }, { Allow: allow });
      } else {
        fields.error = 'not_found';
        sendJson(res, 404, { error: 'not_found', error_description: `no endpoint at ${url.pathname}` });
      }
      return done();
    }
    let result: void | Promise<void>;
    try {
      result = handler(ex);
    } catch (err) {
      fail(ex, err);
      return done();
    }
    if (result) result.then(done, (err: unknown) => {
      fail(ex, err);
      done();
    });
    else done();
  };
}

function fail(ex: Exchange, err: unknown): void {
  const { res } = ex;
  const known = err instanceof HttpError;
  ex.log.error = known ? err.error : 'server_error';
  ex.log.errorDescription = err instanceof Error ? err.message : String(err);
  ex.log.outcome = 'failed';
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (known) sendJson(res, err.status, { error: err.error, error_description: err.description }, { 'Cache-Control': 'no-store', Connection: 'close' });
  else sendJson(res, 500, { error: 'server_error', error_description: 'the mock hit an unexpected error; see its log' }, { 'Cache-Control': 'no-store' });
}
