import { ACCESS_TOKEN_TYPE } from '../../oauth/grant-types.js';
import { parseScope } from '../../oauth/scope.js';
import { checkAccessToken } from '../core/access-token.js';
import type { MockClient } from '../core/config.js';
import { q, sendOAuthError, type Exchange } from '../core/http.js';
import { sendServiceToken } from '../core/service-token.js';

/**
 * grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693 section 2.1), for clients whose
 * grant_types allow it (handleToken checks). The subject token must be a live access token of this
 * server; the new token keeps its subject, carries `act` naming the actor when an actor token is given (section 4.1), and is
 * for the audience or resource asked, which the client's `token_exchange.audiences` must list (else
 * invalid_target); without either it is for the mock's own API. No refresh token.
 */
export async function handleTokenExchangeGrant(ex: Exchange, client: MockClient, values: Map<string, string>): Promise<void> {
  const subjectToken = values.get('subject_token');
  const subjectType = values.get('subject_token_type');
  if (!subjectToken || !subjectType) return sendOAuthError(ex, 400, 'invalid_request', 'subject_token and subject_token_type are required (RFC 8693 section 2.1)');
  if (subjectType !== ACCESS_TOKEN_TYPE) return sendOAuthError(ex, 400, 'invalid_request', `subject_token_type ${q(subjectType)} is not supported; this server exchanges ${ACCESS_TOKEN_TYPE}`);
  const requested = values.get('requested_token_type');
  if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE) {
    return sendOAuthError(ex, 400, 'invalid_request', `requested_token_type ${q(requested)} is not supported; this server issues ${ACCESS_TOKEN_TYPE}`);
  }
  const subject = await checkAccessToken(ex.state, subjectToken);
  if (!subject.ok) return sendOAuthError(ex, 400, 'invalid_request', `the subject_token is not a live access token of this server (${subject.reason})`);

  let act: Record<string, unknown> | undefined;
  const actorToken = values.get('actor_token');
  const actorType = values.get('actor_token_type');
  if (actorToken === undefined && actorType !== undefined) return sendOAuthError(ex, 400, 'invalid_request', 'actor_token_type is sent without an actor_token (RFC 8693 section 2.1)');
  if (actorToken !== undefined) {
    if (actorType === undefined) return sendOAuthError(ex, 400, 'invalid_request', 'actor_token_type is required with an actor_token (RFC 8693 section 2.1)');
    if (actorType !== ACCESS_TOKEN_TYPE) return sendOAuthError(ex, 400, 'invalid_request', `actor_token_type ${q(actorType)} is not supported; use ${ACCESS_TOKEN_TYPE}`);
    const actor = await checkAccessToken(ex.state, actorToken);
    if (!actor.ok) return sendOAuthError(ex, 400, 'invalid_request', `the actor_token is not a live access token of this server (${actor.reason})`);
    // Section 4.1: a prior actor of the subject token nests inside the new one.
    act = { sub: actor.claims.sub, ...(subject.claims.act ? { act: subject.claims.act } : {}) };
  }

  const target = values.get('audience') ?? values.get('resource');
  const allowed = client.tokenExchange?.audiences ?? [];
  if (target !== undefined && target !== ex.state.baseUrl && !allowed.includes(target)) {
    return sendOAuthError(ex, 400, 'invalid_target', `client ${client.clientId} may not exchange tokens for ${q(target)} (its token_exchange.audiences: ${allowed.join(', ') || 'none'})`);
  }
  const granted = parseScope(subject.claims.scope);
  let scopes = granted;
  const asked = values.get('scope');
  if (asked !== undefined) {
    scopes = parseScope(asked);
    const extra = scopes.filter((s) => !granted.includes(s));
    if (extra.length > 0) return sendOAuthError(ex, 400, 'invalid_scope', `scope ${extra.join(' ')} is beyond the subject token's (${granted.join(' ')})`);
  }
  await sendServiceToken(ex, client, {
    sub: subject.claims.sub,
    scopes,
    ...(target !== undefined ? { aud: target } : {}),
    authTime: subject.claims.auth_time,
    ...(act ? { act } : {}),
    extra: { issued_token_type: ACCESS_TOKEN_TYPE },
  });
}
