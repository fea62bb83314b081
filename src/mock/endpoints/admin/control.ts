import { parseScope, formatScope } from '../../../oauth/scope.js';
import { validateClient, validateUser, type MockClient, type MockScope, type MockUser } from '../../core/config/config.js';
import { SIGNATURE_KINDS } from '../../core/tokens/broken-token.js';
import type { MockState } from '../../core/http/http.js';
import { MAX_QUEUED } from '../../core/tokens/queue.js';
import { checkProtectedResource } from '../../core/config/config-resource.js';
import { mcpTarget, resourceMetadataUrl } from '../../core/tokens/protected-resources.js';

/** Protected resources added at run time are bounded, as every store of the mock is. */
const MAX_PROTECTED_RESOURCES = 100;
import { endSessions, listSessions, type MockSession } from '../../core/sessions/sessions.js';
import { describeRequest, type MockRequest } from '../../core/http/request-log.js';
import { MockAdminError, parseClock, parseEnqueue, parseIssueToken, seconds, type EnqueueInput, type IssueTokenInput, type MockTokenResponse, fields, parseMoveTarget } from './input.js';
import { decideCibaRequest, pendingCibaRequest } from '../../ciba/decide.js';

/**
 * What the admin API does, once for HTTP (/_mock/, handlers.ts) and for library mode (the methods of
 * the object createMockServer returns). Every operation works on one MockState, so that each issuer
 * keeps its own. Bad input throws MockAdminError naming the field.
 */

/** Issues tokens without a flow: a token response, as the token endpoint would answer it. */
export async function issueToken(state: MockState, input: IssueTokenInput): Promise<MockTokenResponse> {
  const t = parseIssueToken(input);
  const clientId = t.clientId ?? state.config.clients.keys().next().value!;
  const client = state.config.clients.get(clientId);
  if (!client) throw new MockAdminError('client_id', `no client ${JSON.stringify(clientId)} (clients: ${[...state.config.clients.keys()].join(', ')})`);
  const scopes = t.scope === undefined ? [...client.scopes] : parseScope(t.scope);
  const notAllowed = scopes.filter((s) => !client.scopes.has(s));
  if (notAllowed.length > 0) throw new MockAdminError('scope', `client ${client.clientId} may not have scope ${notAllowed.join(' ')} (it may have: ${formatScope([...client.scopes])})`);
  const known = [...state.config.users.values()].find((u) => u.sub === t.sub) ?? state.config.users.get(t.sub);
  const user: MockUser = known ?? { username: t.sub, password: '', sub: t.sub, claims: {} };
  const [{ tokenResponse }, { newJti }, { serverToken }] = await Promise.all([import('../token.js'), import('../../core/tokens/jwt.js'), import('../../core/store/random-pool.js')]);
  const now = state.now();
  const jti = newJti();
  const lifetime = t.expiresIn ?? state.config.lifetimes.accessToken;
  // A refresh token only for a configured user: refreshing looks the user up.
  const family = known && scopes.includes('offline_access') ? serverToken(128) : undefined;
  state.store.ensureRoomForTokens(state.config.accessTokenFormat === 'opaque', family !== undefined);
  if (family) {
    const familyRecord = { revoked: false, expiresAt: now + state.config.lifetimes.refreshToken * 1000 };
    state.store.families.set(family, familyRecord);
    state.store.addToFamily(family, familyRecord, jti, now + lifetime * 1000);
  }
  const next = state.queue.takeNextToken();
  if (t.claims) next.claims = { ...next.claims, ...t.claims };
  const body = await tokenResponse(state, client, { username: user.username, user, scopes, refreshScopes: scopes, authTime: now, jti, lifetime, ...(family ? { family } : {}) }, next);
  return body as unknown as MockTokenResponse;
}

/** Queues claims for the next tokens, a fault for an endpoint, or a broken next access token. */
export function enqueue(state: MockState, input: EnqueueInput): void {
  const item = parseEnqueue(input, state.endpoints);
  const { queue } = state;
  const full = () => new MockAdminError('body', `at most ${MAX_QUEUED} items may wait in one queue; let them be used, or reset`);
  if (item.kind === 'claims') {
    if (!queue.hasRoom('claims')) throw full();
    queue.addClaims(item.claims);
  } else if (item.kind === 'token') {
    if (state.config.accessTokenFormat === 'opaque' && SIGNATURE_KINDS.includes(item.token)) {
      throw new MockAdminError('token', `${item.token} needs a signed access token, but this mock issues opaque ones (access_token_format); use expired, wrong-issuer or wrong-audience`);
    }
    if (!queue.hasRoom('token')) throw full();
    queue.addBrokenToken(item.token);
  } else {
    if (!queue.hasRoom({ endpoint: item.endpoint })) throw full();
    queue.addFault(item.endpoint, item.fault);
  }
}

export function requests(state: MockState): MockRequest[] {
  return state.requests.entries().map(describeRequest);
}

export function clearRequests(state: MockState): void {
  state.requests.clear();
}

/** The mock's clock in epoch seconds, after moving it as asked ({"advance"} or {"set"}). */
export function moveClock(state: MockState, input: unknown): number {
  const move = parseClock(input);
  if ('advance' in move) state.clock.advance(move.advance);
  else state.clock.set(move.set);
  return state.now() / 1000;
}

export function advanceClock(state: MockState, by: number): void {
  state.clock.advance(seconds(by, 'advance', -Infinity, Infinity));
}

export function setClock(state: MockState, epochSeconds: number): void {
  state.clock.set(seconds(epochSeconds, 'set', 0, Infinity));
}

/** A new signing key; the old one stays in the JWKS until the tokens it signed expire. Resolves to the new kid. */
export async function rotateKeys(state: MockState): Promise<string> {
  return (await state.keys()).rotate();
}

/** Adds a user, checked as the configuration file's users are. */
export function addUser(state: MockState, input: unknown): MockUser {
  const users = state.config.users as Map<string, MockUser>;
  validateUser(input, '$', users, configFail);
  return users.get((input as { username: string }).username)!;
}

/** Adds a client, checked as the configuration file's clients are. */
export function addClient(state: MockState, input: unknown): MockClient {
  const clients = state.config.clients as Map<string, MockClient>;
  validateClient(input, '$', state.config.scopes as Map<string, MockScope>, clients, configFail);
  return clients.get((input as { client_id: string }).client_id)!;
}

/**
 * Adds a protected resource at `{root}{path}` (RFC 9728), as config protected_resources does: to the
 * server's root issuer, whose routes serve it, for the tokens of the issuer it names. Resolves to its
 * resource identifier and metadata URL.
 */
export function addResource(state: MockState, input: unknown): { resource: string; resource_metadata: string } {
  const root = state.server?.root ?? state;
  const resources = root.config.protectedResources;
  if (resources.length >= MAX_PROTECTED_RESOURCES) throw new MockAdminError('body', `at most ${MAX_PROTECTED_RESOURCES} protected resources; restart the mock with fewer`);
  const checked = checkProtectedResource(input, [...root.config.issuers.keys()], resources);
  if ('problem' in checked) throw new MockAdminError(checked.field || 'body', checked.problem);
  resources.push(checked);
  const resource = `${root.issuer}${checked.path}`;
  return { resource, resource_metadata: resourceMetadataUrl(resource) };
}

/**
 * Moves the MCP endpoint `{base_url}/mcp` to another authorization server of this mock (SEP-2352,
 * authorization-server migration): `{"issuer": NAME}` a named issuer, `{"issuer": null}` back to the
 * root one. Its metadata names that issuer from now on (RFC 9728 section 2, `authorization_servers`),
 * which alone issues tokens for it and whose tokens alone it takes: a client's registration and tokens
 * kept for the old issuer are no use at the new one.
 */
export function moveMcpResource(state: MockState, input: unknown): { resource: string; authorization_servers: string[] } {
  const root = state.server?.root ?? state;
  if (!root.config.mcp.enabled) throw new MockAdminError('body', 'the MCP endpoint is off (config mcp.enabled false)');
  const issuer = parseMoveTarget(input, [...(root.server?.named.keys() ?? [])]);
  if (issuer === undefined) delete root.config.mcp.authorizationServer;
  else root.config.mcp.authorizationServer = issuer;
  const target = mcpTarget(root);
  return { resource: target.resource, authorization_servers: [target.state.issuer] };
}

/** The configuration's checks report `$.field: problem`; the first becomes the error. */
function configFail(field: string, message: string): never {
  throw new MockAdminError(field.replace(/^\$\.?/, '') || 'body', message);
}

/** The signed-in sessions (sid, sub, auth_time, the clients it issued codes to). */
export function sessions(state: MockState): MockSession[] {
  return listSessions(state);
}

/** Ends the session with this sid (MockAdminError when there is none), or every session; the clients are told by back-channel. */
export function endSession(state: MockState, sid?: string): number {
  const ended = endSessions(state, sid, 'admin');
  if (sid !== undefined && ended === 0) throw new MockAdminError('sid', `no signed-in session has sid ${JSON.stringify(sid)}`);
  return ended;
}

/**
 * Approves or refuses a backchannel authentication request (CIBA Core 1.0 section 8), as the user
 * would at {auth_url}/ciba: {"auth_req_id", "action": "approve"|"deny"}. In ping mode the client is told.
 */
export function decideCiba(state: MockState, input: unknown): { auth_req_id: string; status: 'approved' | 'denied' } {
  const o = fields(input, ['auth_req_id', 'action']);
  if (typeof o.auth_req_id !== 'string' || o.auth_req_id === '') throw new MockAdminError('auth_req_id', 'must be the auth_req_id the backchannel authentication endpoint answered');
  if (o.action !== 'approve' && o.action !== 'deny') throw new MockAdminError('action', 'must be "approve" or "deny"');
  const record = pendingCibaRequest(state, o.auth_req_id);
  if (record === 'unknown') throw new MockAdminError('auth_req_id', 'no backchannel authentication request has this auth_req_id (or it has expired)');
  if (record === 'decided') throw new MockAdminError('auth_req_id', 'this request has already been decided');
  decideCibaRequest(state, o.auth_req_id, record, o.action);
  return { auth_req_id: o.auth_req_id, status: o.action === 'approve' ? 'approved' : 'denied' };
}

/** Forgets codes, tokens, sessions, PAR and replay state (a new store, security-store.ts), queued items and the request log (not users, clients, keys or the clock). */
export function reset(state: MockState): void {
  // Back-Channel Logout 1.0: every session ends, and its clients are told, whatever the cause.
  endSessions(state, undefined, 'reset');
  state.store = state.store.emptied();
  state.queue.clear();
  state.requests.clear();
}
