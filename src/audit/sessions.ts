import { decodeJwtUnverified } from '../oauth/jwt.js';
import type { AuditContext } from './context.js';
import type { TokenExchange } from './exchanges.js';
import { skip, type ProbeOutcome } from './types.js';

/**
 * What the session probes share: they run only where the server says it has sessions to end
 * (an end_session_endpoint, RP-Initiated Logout 1.0), and they need ID tokens.
 */
export function endSessionEndpoint(ctx: AuditContext): string | undefined {
  const endpoint = ctx.metadata?.end_session_endpoint;
  return typeof endpoint === 'string' ? endpoint : undefined;
}

export const NO_END_SESSION: ProbeOutcome = skip('the server announces no end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0): it has no sessions to probe');

/** The client's scopes with openid, when the server supports it (for an ID token), else undefined. */
export function openidScopes(ctx: AuditContext): string[] | undefined {
  const supported = ctx.metadata?.scopes_supported;
  if (Array.isArray(supported) && !supported.includes('openid')) return undefined;
  return ctx.config.scopes.includes('openid') ? [...ctx.config.scopes] : [...ctx.config.scopes, 'openid'];
}

/** The ID token of a token response, with its claims (not verified: the id-token probe does that). */
export function idTokenOf(exchange: TokenExchange): { token: string; claims: Record<string, unknown> } | undefined {
  const token = (exchange.json as Record<string, unknown> | undefined)?.id_token;
  if (typeof token !== 'string') return undefined;
  const decoded = decodeJwtUnverified(token);
  return decoded ? { token, claims: decoded.claims } : undefined;
}
