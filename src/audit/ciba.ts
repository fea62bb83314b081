import { accountOf } from './account.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import { CIBA_GRANT } from '../oauth/ciba.js';
import { formatScope } from '../oauth/scope.js';
import type { AuditContext } from './context.js';
import type { TokenExchange } from './exchanges.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';

/** An acknowledged backchannel authentication request (CIBA Core 1.0 section 7.3) as the probes use it. */
export interface CibaRequest {
  authReqId: string;
  /** Seconds. */
  interval: number;
}

/** The server's backchannel authentication endpoint, or a skip naming why the CIBA probes do not apply. */
export function cibaEndpointOf(ctx: AuditContext): string {
  const endpoint = ctx.metadata?.backchannel_authentication_endpoint;
  if (typeof endpoint !== 'string') throw new ProbeSkip('the server does not advertise a backchannel_authentication_endpoint (CIBA Core section 4)');
  return endpoint;
}

/** The scope of the audit's CIBA requests: the client's, with openid (section 7.1). */
export function cibaScope(ctx: AuditContext): string {
  const scopes = ctx.config.scopes.includes('openid') ? ctx.config.scopes : ['openid', ...ctx.config.scopes];
  return formatScope(scopes);
}

/** One backchannel authentication request (section 7.1) with `params`, by `client` (the audit's own by default), recorded. */
export async function sendBackchannelRequest(ctx: AuditContext, params: Record<string, string | undefined>, client?: ClientCredentials): Promise<TokenExchange> {
  const endpoint = cibaEndpointOf(ctx);
  const req = await ctx.authenticatedRequest(endpoint, params, client);
  return ctx.rawToken('backchannel authentication', req.url, { method: req.method, headers: req.headers, body: req.body });
}

/**
 * An acknowledged request for the audit's user (its --username as login_hint), to probe the token
 * endpoint with; a client the server will not let use CIBA is a skip, saying why.
 */
export async function requestCiba(ctx: AuditContext): Promise<CibaRequest> {
  const { username } = accountOf(ctx);
  const ack = await sendBackchannelRequest(ctx, { scope: cibaScope(ctx), login_hint: username, binding_message: 'oauthctl audit' });
  if (ack.error && ack.status >= 400 && ack.status < 500) {
    throw new ProbeSkip(`the server takes no backchannel authentication request from ${ctx.config.clientId} for ${username}: ${ack.error.error}`);
  }
  const json = (ack.json ?? {}) as Record<string, unknown>;
  if (ack.status !== 200 || typeof json.auth_req_id !== 'string') throw new ProbeFailure(`no auth_req_id: the backchannel authentication endpoint answered HTTP ${ack.status}`);
  return { authReqId: json.auth_req_id, interval: typeof json.interval === 'number' && json.interval >= 0 ? json.interval : 5 };
}

/** One token request with the auth_req_id (section 10.1), by `client` (the audit's own by default), recorded. */
export function pollCiba(ctx: AuditContext, authReqId: string, client?: ClientCredentials): Promise<TokenExchange> {
  return ctx.token({ grant_type: CIBA_GRANT, auth_req_id: authReqId }, client);
}
