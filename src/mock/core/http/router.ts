import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorDescription, hasResponded, HttpError, isFormBody, readBodies, respond, sendJson, STYLESHEET_PATH, type Exchange, type LogFields, type MockState } from './http.js';
import { endpointName } from '../tokens/queue.js';
import { keptText } from './request-log.js';
import { RESOURCE_METADATA_WELL_KNOWN, targetAtPath, MCP_HEADER_METADATA_PATH } from '../tokens/protected-resources.js';

type Handler = (ex: Exchange) => void | Promise<void>;

/**
 * An endpoint's handler, imported on first use (or by preloadHandlers right after listening), so that
 * the server listens and prints its start-up line before the endpoint modules are loaded.
 */
class LazyHandler {
  handler?: Handler;
  private loading?: Promise<Handler>;
  constructor(private readonly load: () => Promise<Handler>) {}
  get(): Promise<Handler> {
    return (this.loading ??= this.load().then((h) => (this.handler = h)));
  }
}

const lazy = <M>(load: () => Promise<M>, pick: (m: M) => Handler) => new LazyHandler(() => load().then(pick));
const now = (handler: Handler) => Object.assign(new LazyHandler(() => Promise.resolve(handler)), { handler });

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

async function handleStylesheet(ex: Exchange): Promise<void> {
  const { STYLESHEET } = await import('../pages/pages.js');
  ex.log.outcome = 'ok';
  respond(
    ex.res,
    200,
    { 'Content-Type': 'text/css; charset=utf-8', 'Content-Length': Buffer.byteLength(STYLESHEET), 'Cache-Control': 'max-age=3600', 'X-Content-Type-Options': 'nosniff' },
    STYLESHEET,
  );
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

type Routes = Map<string, Partial<Record<string, LazyHandler>>>;

const SESSION_PREFIX = '/_mock/sessions/';
const SESSION_ROUTE = `${SESSION_PREFIX}{sid}`;

/**
 * Path -> method -> handler. One table for the process: a handler takes the issuer's state from the
 * exchange, so every server and issuer shares the table, and a module loaded for one is loaded for all
 * (a test's second fixture preloads nothing).
 */
let routeTable: Routes | undefined;
const routes = (): Routes => (routeTable ??= buildRoutes());

function buildRoutes(): Routes {
  const api = () => import('../../endpoints/api.js');
  const authorize = () => import('../../endpoints/authorize.js');
  const discovery = () => import('../../endpoints/discovery.js');
  const interaction = () => import('../../endpoints/interaction.js');
  const introspection = () => import('../../endpoints/introspection.js');
  const device = () => import('../../endpoints/device.js');
  const admin = () => import('../../endpoints/admin/handlers.js');
  const cibaPage = () => import('../../endpoints/ciba-page.js');
  const register = () => import('../../endpoints/register.js');
  const mcp = () => import('../../mcp/endpoint.js');
  const userinfo = lazy(
    () => import('../../endpoints/userinfo.js'),
    (m) => m.handleUserinfo,
  );
  const metadata = lazy(discovery, (m) => m.handleMetadata);
  const endSession = lazy(
    () => import('../../endpoints/end-session.js'),
    (m) => m.handleEndSession,
  );
  return new Map<string, Partial<Record<string, LazyHandler>>>([
    ['/', { GET: now(handleIndex) }],
    [
      '/authorize',
      {
        GET: lazy(
          () => Promise.all([authorize(), import('../clients/client-metadata-document.js')]),
          ([m, documents]) => documents.resolvingClientIdDocuments(m.handleAuthorize),
        ),
      },
    ],
    ['/login', { POST: lazy(interaction, (m) => m.handleLogin) }],
    ['/consent', { GET: lazy(interaction, (m) => m.handleConsentPage), POST: lazy(interaction, (m) => m.handleConsent) }],
    [
      '/token',
      {
        POST: lazy(
          () => import('../../endpoints/token.js'),
          (m) => m.handleToken,
        ),
      },
    ],
    [
      '/device_authorization',
      {
        POST: lazy(
          () => import('../../endpoints/device-authorization.js'),
          (m) => m.handleDeviceAuthorization,
        ),
      },
    ],
    [
      '/backchannel',
      {
        POST: lazy(
          () => import('../../endpoints/backchannel-authentication.js'),
          (m) => m.handleBackchannelAuthentication,
        ),
      },
    ],
    ['/ciba', { GET: lazy(cibaPage, (m) => m.handleCibaPage), POST: lazy(cibaPage, (m) => m.handleCibaDecision) }],
    ['/device', { GET: lazy(device, (m) => m.handleVerificationPage), POST: lazy(device, (m) => m.handleVerification) }],
    ['/userinfo', { GET: userinfo, POST: userinfo }],
    ['/introspect', { POST: lazy(introspection, (m) => m.handleIntrospect) }],
    [
      '/par',
      {
        POST: lazy(
          () => import('../../endpoints/par.js'),
          (m) => m.handlePar,
        ),
      },
    ],
    [
      '/revoke',
      {
        POST: lazy(
          () => import('../../endpoints/revocation.js'),
          (m) => m.handleRevoke,
        ),
      },
    ],
    ['/logout', { GET: endSession, POST: endSession }],
    ['/jwks', { GET: lazy(discovery, (m) => m.handleJwks) }],
    ['/.well-known/oauth-authorization-server', { GET: metadata }],
    ['/.well-known/openid-configuration', { GET: metadata }],
    // {base_url} itself, the resource identifier of RFC 9728 and RFC 8707: who the token speaks for, as /me.
    ['/api', { GET: lazy(api, (m) => m.handleMe) }],
    ['/api/photos', { GET: lazy(api, (m) => m.handlePhotos) }],
    ['/api/me', { GET: lazy(api, (m) => m.handleMe) }],
    // The MCP server {base_url}/mcp (src/mock/mcp/, config mcp).
    ['/api/mcp', { POST: lazy(mcp, (m) => m.handleMcpPost), GET: lazy(mcp, (m) => m.handleMcpGet), DELETE: lazy(mcp, (m) => m.handleMcpDelete) }],
    [MCP_HEADER_METADATA_PATH, { GET: lazy(mcp, (m) => m.handleMcpHeaderMetadata) }],
    [STYLESHEET_PATH, { GET: now(handleStylesheet) }],
    // The admin API (endpoints/admin/): control from a test, and the flows page.
    ['/_mock', { GET: lazy(admin, (m) => m.handleFlowsRedirect) }],
    ['/_mock/', { GET: lazy(admin, (m) => m.handleFlowsPage) }],
    ['/_mock/events', { GET: lazy(admin, (m) => m.handleFlowsEvents) }],
    ['/_mock/tokens', { POST: lazy(admin, (m) => m.handleIssueToken) }],
    ['/_mock/next', { POST: lazy(admin, (m) => m.handleEnqueue) }],
    ['/_mock/requests', { GET: lazy(admin, (m) => m.handleRequests), DELETE: lazy(admin, (m) => m.handleClearRequests) }],
    ['/_mock/clock', { GET: lazy(admin, (m) => m.handleClock), POST: lazy(admin, (m) => m.handleMoveClock) }],
    ['/_mock/keys/rotate', { POST: lazy(admin, (m) => m.handleRotateKeys) }],
    ['/_mock/users', { POST: lazy(admin, (m) => m.handleAddUser) }],
    ['/_mock/clients', { POST: lazy(admin, (m) => m.handleAddClient) }],
    ['/_mock/reset', { POST: lazy(admin, (m) => m.handleReset) }],
    ['/_mock/ciba', { POST: lazy(admin, (m) => m.handleCibaDecision) }],
    ['/_mock/resources', { POST: lazy(admin, (m) => m.handleAddResource) }],
    ['/_mock/mcp/authorization-server', { POST: lazy(admin, (m) => m.handleMoveMcpResource) }],
    ['/register', { POST: lazy(register, (m) => m.handleRegister) }],
    [
      RESOURCE_METADATA_WELL_KNOWN,
      {
        GET: lazy(
          () => import('../../endpoints/resource-metadata.js'),
          (m) => m.handleResourceMetadata,
        ),
      },
    ],
    ['/_mock/sessions', { GET: lazy(admin, (m) => m.handleSessions), DELETE: lazy(admin, (m) => m.handleEndSessions) }],
    // /_mock/sessions/{sid}: the one route with a path parameter.
    [SESSION_ROUTE, { DELETE: lazy(admin, (m) => m.handleEndSession) }],
  ]);
}

/**
 * The routes whose path has a variable part: RFC 9728 metadata (`/.well-known/oauth-protected-resource/api`),
 * a registered client's configuration endpoint (RFC 7592, `/register/{client_id}`), and the protected
 * resources of the configuration (any method).
 */
function variableRoute(state: MockState, path: string, table: Routes): Partial<Record<string, LazyHandler>> | undefined {
  if (path.startsWith(`${RESOURCE_METADATA_WELL_KNOWN}/`)) return table.get(RESOURCE_METADATA_WELL_KNOWN);
  if (path.startsWith('/register/')) {
    const manage = lazy(
      () => import('../../endpoints/register.js'),
      (m) => m.handleClientConfiguration,
    );
    return { GET: manage, PUT: manage, DELETE: manage };
  }
  const target = targetAtPath(state, path);
  if (!target) return undefined;
  const handler = lazy(
    () => import('../../endpoints/api.js'),
    (m) => (ex: Exchange) => m.handleProtectedResource(ex, target),
  );
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}

let endpointNames: ReadonlySet<string> | undefined;

/** The endpoint names a fault may be queued for: those of the routes (`authorize`, `token`, `api`, ...). */
export function routeEndpoints(): ReadonlySet<string> {
  if (endpointNames) return endpointNames;
  const names = new Set<string>();
  for (const path of routes().keys()) {
    const name = endpointName(path);
    if (name !== undefined) names.add(name);
  }
  return (endpointNames = names);
}

/** The admin API's own requests stay out of the request log it shows. */
const isAdminPath = (path: string) => path.startsWith('/_mock/') || path === '/_mock';

/** Path and query of a request target: plain splitting when the path is a route, else WHATWG URL parsing. */
function splitTarget(target: string, table: Routes): { path: string; query: string } | undefined {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  // A route's path is plain ASCII, which URL parsing leaves as it is; a '#' would end the query.
  if (table.has(path) && !query.includes('#')) return { path, query };
  try {
    const url = new URL(target, 'http://mock.invalid');
    return { path: url.pathname, query: url.search.slice(1) };
  } catch {
    return undefined;
  }
}

/**
 * The request listener: routes, catches every error (a bad request gets a 4xx, never a crash), and
 * logs one entry per request.
 */
export function createRequestListener(state: MockState, log?: (entry: MockLogEntry) => void): { listener: (req: IncomingMessage, res: ServerResponse) => void; preload: () => Promise<void> } {
  const table = routes();
  const preload = async () => {
    for (const entry of table.values()) for (const h of Object.values(entry)) if (h && !h.handler) await h.get();
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const fields: LogFields = {};
    const id = state.requests.newId();
    let path = '/';
    let query = '';
    const done = () => {
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const outcome = fields.outcome ?? (res.statusCode < 400 ? 'ok' : 'refused');
      if (!isAdminPath(path)) {
        const body = readBodies.get(req);
        const form = body !== undefined && isFormBody(req);
        state.requests.add({
          id,
          time: state.now(),
          method: req.method ?? '?',
          path,
          endpoint: endpointName(path),
          query: keptText(query),
          form: form ? keptText(body) : undefined,
          body: body !== undefined && !form ? keptText(body) : undefined,
          headers: req.headers,
          status: res.statusCode,
          clientId: fields.clientId,
          outcome,
          error: fields.error,
          errorDescription: fields.errorDescription,
          durationMs,
          flow: fields.flow,
          fault: fields.fault,
        });
      }
      if (!log) return;
      const entry: MockLogEntry = {
        time: new Date().toISOString(),
        method: req.method ?? '?',
        path,
        status: res.statusCode,
        outcome,
        duration_ms: durationMs,
      };
      if (fields.clientId !== undefined) entry.client_id = fields.clientId;
      if (fields.error !== undefined) entry.error = fields.error;
      if (fields.errorDescription !== undefined) entry.error_description = fields.errorDescription;
      log(entry);
    };
    const target = splitTarget(req.url ?? '/', table);
    if (!target) {
      fields.error = 'invalid_request';
      sendJson(res, 400, { error: 'invalid_request', error_description: 'the request target is not a valid URL path' });
      return done();
    }
    path = target.path;
    query = target.query;
    const ex: Exchange = { req, res, path, query, state, log: fields, id };
    const entry = table.get(path) ?? (path.startsWith(SESSION_PREFIX) ? table.get(SESSION_ROUTE) : undefined) ?? variableRoute(state, path, table);
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? '');
    const lazyHandler = entry?.[method];
    if (!lazyHandler) {
      if (entry) {
        const allow = Object.keys(entry).join(', ');
        fields.error = 'invalid_request';
        fields.errorDescription = `method ${req.method} not allowed`;
        sendJson(res, 405, { error: 'invalid_request', error_description: errorDescription(`${path} accepts ${allow} only`) }, { Allow: allow });
      } else {
        fields.error = 'not_found';
        sendJson(res, 404, { error: 'not_found', error_description: errorDescription(`no endpoint at ${path}`) });
      }
      return done();
    }
    const handler = lazyHandler.handler;
    const run = () => (handler ? handler(ex) : lazyHandler.get().then((h) => h(ex)));
    // A fault the admin API queued for this endpoint comes first (one place for every endpoint).
    const endpoint = state.queue.noFaults ? undefined : endpointName(path);
    const fault = endpoint === undefined ? undefined : state.queue.takeFault(endpoint);
    let result: void | Promise<void>;
    try {
      result = fault ? import('./fault.js').then((m) => m.applyFault(ex, fault, endpoint!, run)) : run();
    } catch (err) {
      fail(ex, err);
      return done();
    }
    if (result)
      result.then(done, (err: unknown) => {
        fail(ex, err);
        done();
      });
    else done();
  };
  return { listener, preload };
}

/** nginx's status for a request whose client closed the connection first: logged only, nothing is sent. */
const CLIENT_CLOSED_REQUEST = 499;

function fail(ex: Exchange, err: unknown): void {
  const { res } = ex;
  if (!ex.req.complete && (ex.req.destroyed || (err as NodeJS.ErrnoException).code === 'ECONNRESET')) {
    ex.log.outcome = 'client disconnected before its request was complete';
    if (!hasResponded(res)) res.statusCode = CLIENT_CLOSED_REQUEST;
    return;
  }
  const known = err instanceof HttpError;
  ex.log.error = known ? err.error : 'server_error';
  ex.log.errorDescription = err instanceof Error ? err.message : String(err);
  ex.log.outcome = 'failed';
  // A handler that failed after its response was made: that response stands.
  if (hasResponded(res)) return;
  if (known) sendJson(res, err.status, { error: err.error, error_description: errorDescription(err.description) }, { 'Cache-Control': 'no-store', Connection: 'close', ...err.headers });
  else sendJson(res, 500, { error: 'server_error', error_description: 'the mock hit an unexpected error; see its log' }, { 'Cache-Control': 'no-store' });
}
