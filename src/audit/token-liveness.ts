import { postAuthenticated } from '../client/flows/endpoint-request.js';
import { type AuditContext } from './context.js';
import { issuedTokens } from './exchanges.js';
import { jsonObject } from './json-body.js';

export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  /** DPoP when the server bound the access token to the audit's DPoP key (RFC 9449 section 5). */
  tokenType?: string | undefined;
}

/** Whether tokens still work, and how that was found out; `valid` is undefined when nothing could tell. */
export interface Liveness {
  valid: boolean | undefined;
  how: string;
}

/** The access and refresh token of a token response, when it issued them. */
export function tokensOf(json: unknown): IssuedTokens | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const o = json as Record<string, unknown>;
  if (typeof o.access_token !== 'string') return undefined;
  return {
    accessToken: o.access_token,
    refreshToken: typeof o.refresh_token === 'string' ? o.refresh_token : undefined,
    tokenType: typeof o.token_type === 'string' ? o.token_type : undefined,
  };
}

/**
 * Asks whether tokens are still valid: introspection when the server offers it (RFC 7662 section 2.2,
 * `active`), else a refresh with the refresh token, else a call of --api-url (or, for an openid scope,
 * the userinfo endpoint) with the access token.
 */
export async function checkLiveness(ctx: AuditContext, tokens: IssuedTokens): Promise<Liveness> {
  const introspection = ctx.endpoint('introspection_endpoint');
  if (introspection !== undefined) {
    const res = await postAuthenticated(ctx.http, ctx.client, introspection, { token: tokens.accessToken, token_type_hint: 'access_token' });
    const active = jsonObject(res.body, `the answer of ${introspection}`)?.active;
    if (res.status === 200 && typeof active === 'boolean') return { valid: active, how: `introspection says active=${active}` };
    ctx.trace(`audit: introspection answered HTTP ${res.status} without an active member`);
  }
  if (tokens.refreshToken !== undefined) {
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken });
    return { valid: issuedTokens(refreshed), how: issuedTokens(refreshed) ? 'the refresh token still works' : 'the refresh token is refused' };
  }
  const userinfo = ctx.config.scopes.includes('openid') ? ctx.endpoint('userinfo_endpoint') : undefined;
  const resource = ctx.apiUrl ?? userinfo;
  if (resource !== undefined) {
    const res = await ctx.http.request(resource, { headers: await presented(ctx, tokens, resource) });
    if (res.status >= 200 && res.status < 300) return { valid: true, how: `${resource} still accepts the access token` };
    if (res.status === 401) return { valid: false, how: `${resource} refuses the access token (HTTP 401)` };
    return { valid: undefined, how: `${resource} answered HTTP ${res.status}` };
  }
  return { valid: undefined, how: 'no introspection endpoint, no refresh token, no userinfo endpoint and no --api-url to check them with' };
}

/** The access token as the resource expects it: a DPoP-bound one with a proof of the audit's key (RFC 9449 section 7.1), else as a bearer token. */
async function presented(ctx: AuditContext, tokens: IssuedTokens, resource: string): Promise<Record<string, string>> {
  const session = ctx.config.dpop;
  if (session === undefined || tokens.tokenType?.toLowerCase() !== 'dpop') return { authorization: `Bearer ${tokens.accessToken}` };
  return { authorization: `DPoP ${tokens.accessToken}`, dpop: await session.proof('GET', resource, tokens.accessToken) };
}
