import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../../oauth/pkce.js';
import { checkClientMetadata, registrationOpen } from '../core/clients/client-metadata.js';
import { outboundMetadataProblem } from '../core/clients/outbound-metadata.js';
import type { MockClient } from '../core/config/config.js';
import { HttpError, readBody, sendJson, sendOAuthError, type Exchange, type MockState } from '../core/http/http.js';
import { serverToken } from '../core/store/random-pool.js';
import { registrationForMcp } from '../mcp/registration.js';

/** Registered clients are bounded, as every store of the mock is: past it, 503 and nothing is dropped. */
export const MAX_REGISTERED_CLIENTS = 1000;

/** What RFC 7592 needs to manage a registration: the registration access token (its hash) and the metadata as registered. */
interface Registration {
  accessTokenHash: string;
  metadata: Record<string, unknown>;
  issuedAt: number;
  clientSecret?: string;
}

/** The registrations of each issuer (by its configuration, which holds the clients they add). */
const registrations = new WeakMap<object, Map<string, Registration>>();
function registrationsOf(state: MockState): Map<string, Registration> {
  let map = registrations.get(state.config);
  if (!map) registrations.set(state.config, (map = new Map()));
  return map;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** The bearer token of the Authorization header (RFC 6750 section 2.1), or undefined. */
function bearerToken(ex: Exchange): string | undefined {
  return /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(ex.req.headers.authorization ?? '')?.[1];
}

async function jsonMetadata(ex: Exchange): Promise<unknown> {
  if (!/^application\/json\s*(;|$)/i.test(ex.req.headers['content-type'] ?? ''))
    throw new HttpError(400, 'invalid_client_metadata', 'the client metadata must be sent as application/json (RFC 7591 section 3.1)');
  try {
    return JSON.parse(await readBody(ex.req)) as unknown;
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'invalid_client_metadata', 'the body is not valid JSON');
  }
}

/** Whether a registration request may go on: open registration, or the initial access token (RFC 7591 section 3). */
function admitted(ex: Exchange): boolean {
  const { initialAccessToken } = ex.state.config.registration;
  if (initialAccessToken !== undefined) {
    const given = bearerToken(ex);
    if (given !== undefined && constantTimeEqual(given, initialAccessToken)) return true;
    sendOAuthError(ex, 401, 'invalid_token', 'this server registers clients only with its initial access token (RFC 7591 section 3: Authorization: Bearer ...)', {
      'WWW-Authenticate': 'Bearer error="invalid_token"',
    });
    return false;
  }
  if (registrationOpen(ex.state)) return true;
  sendOAuthError(ex, 403, 'access_denied', 'registration is closed at this server (config registration.open)');
  return false;
}

/** The registration response (RFC 7591 section 3.2.1, RFC 7592 section 3): the metadata as registered, and how to manage it. */
function registrationResponse(state: MockState, clientId: string, reg: Registration, accessToken?: string): Record<string, unknown> {
  return {
    ...reg.metadata,
    client_id: clientId,
    client_id_issued_at: reg.issuedAt,
    ...(reg.clientSecret !== undefined ? { client_secret: reg.clientSecret, client_secret_expires_at: 0 } : {}),
    ...(accessToken !== undefined ? { registration_access_token: accessToken } : {}),
    registration_client_uri: `${state.issuer}/register/${encodeURIComponent(clientId)}`,
  };
}

/** Checks metadata for a client: its secret only for a method that uses one. */
function check(state: MockState, input: unknown, clientId: string, secret: string | undefined) {
  const method = (input as Record<string, unknown> | null)?.token_endpoint_auth_method ?? 'client_secret_basic';
  const usesSecret = method === 'client_secret_basic' || method === 'client_secret_post' || method === 'client_secret_jwt';
  return checkClientMetadata(input, clientId, usesSecret ? (secret ?? serverToken(256)) : undefined, state.config.scopes, 'client_secret_basic');
}

function install(state: MockState, client: MockClient): void {
  (state.config.clients as Map<string, MockClient>).set(client.clientId, client);
}

/** POST /register (RFC 7591 section 3): a new client from its metadata. */
export async function handleRegister(ex: Exchange): Promise<void> {
  if (!admitted(ex)) return;
  const input = registrationForMcp(ex.state, await jsonMetadata(ex));
  const regs = registrationsOf(ex.state);
  if (regs.size >= MAX_REGISTERED_CLIENTS)
    throw new HttpError(503, 'temporarily_unavailable', `the mock holds ${MAX_REGISTERED_CLIENTS} registered clients already; delete some (RFC 7592) or restart it`);
  let clientId: string;
  do clientId = `dyn-${serverToken(96)}`;
  while (ex.state.config.clients.has(clientId));
  const checked = check(ex.state, input, clientId, undefined);
  if (!checked.ok) return sendOAuthError(ex, 400, checked.error, checked.description);
  const outbound = await outboundMetadataProblem(ex.state, input);
  if (outbound !== undefined) return sendOAuthError(ex, 400, 'invalid_client_metadata', outbound);
  const accessToken = serverToken(256);
  const reg: Registration = {
    accessTokenHash: hashOf(accessToken),
    metadata: checked.metadata,
    issuedAt: Math.floor(ex.state.now() / 1000),
    ...(checked.client.clientSecret !== undefined ? { clientSecret: checked.client.clientSecret } : {}),
  };
  regs.set(clientId, reg);
  install(ex.state, checked.client);
  ex.log.clientId = clientId;
  ex.log.outcome = 'client registered';
  sendJson(ex.res, 201, registrationResponse(ex.state, clientId, reg, accessToken), NO_STORE);
}

/**
 * GET, PUT, DELETE /register/{client_id} (RFC 7592 section 2): read, replace or delete a registration,
 * with its registration access token. An unknown client or a wrong token are both 401 (section 2).
 */
export async function handleClientConfiguration(ex: Exchange): Promise<void> {
  let clientId: string;
  try {
    clientId = decodeURIComponent(ex.path.slice('/register/'.length));
  } catch {
    clientId = '';
  }
  const regs = registrationsOf(ex.state);
  const reg = regs.get(clientId);
  const token = bearerToken(ex);
  if (!reg || token === undefined || !constantTimeEqual(hashOf(token), reg.accessTokenHash)) {
    return sendOAuthError(ex, 401, 'invalid_token', 'no registration of this client for this registration access token (RFC 7592 section 2)', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
  ex.log.clientId = clientId;
  if (ex.req.method === 'DELETE') {
    regs.delete(clientId);
    (ex.state.config.clients as Map<string, MockClient>).delete(clientId);
    // RFC 7592 section 2.3: the client's grants and tokens are invalidated with it.
    const { accessToken, refreshToken } = ex.state.config.lifetimes;
    ex.state.store.revokeClient(clientId, ex.state.now() + Math.max(accessToken, refreshToken) * 1000);
    ex.log.outcome = 'client deleted';
    ex.res.writeHead(204, NO_STORE).end();
    return;
  }
  if (ex.req.method === 'PUT') {
    const input = await jsonMetadata(ex);
    const given = input as Record<string, unknown> | null;
    // RFC 7592 section 2.2: the client_id must be the one of the URL; a client_secret, if sent, the current one.
    if (given?.client_id !== clientId) return sendOAuthError(ex, 400, 'invalid_client_metadata', 'client_id must be the registered one (RFC 7592 section 2.2)');
    if (given.client_secret !== undefined && given.client_secret !== reg.clientSecret)
      return sendOAuthError(ex, 400, 'invalid_client_metadata', 'client_secret must be the current one (RFC 7592 section 2.2)');
    const checked = check(ex.state, stripManagement(given), clientId, reg.clientSecret);
    if (!checked.ok) return sendOAuthError(ex, 400, checked.error, checked.description);
    const outbound = await outboundMetadataProblem(ex.state, given);
    if (outbound !== undefined) return sendOAuthError(ex, 400, 'invalid_client_metadata', outbound);
    reg.metadata = checked.metadata;
    if (checked.client.clientSecret !== undefined) reg.clientSecret = checked.client.clientSecret;
    else delete reg.clientSecret;
    install(ex.state, checked.client);
    ex.log.outcome = 'client updated';
  } else ex.log.outcome = 'ok';
  sendJson(ex.res, 200, registrationResponse(ex.state, clientId, reg), NO_STORE);
}

/** RFC 7592 section 2.2: the fields the server issued are not metadata to check again. */
function stripManagement(input: Record<string, unknown>): Record<string, unknown> {
  const { client_id: _id, client_secret: _secret, registration_access_token: _rat, registration_client_uri: _uri, client_id_issued_at: _at, client_secret_expires_at: _exp, ...rest } = input;
  return rest;
}
