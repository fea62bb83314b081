import { ACCESS_TOKEN_TYPE, ID_JAG_TOKEN_TYPE } from '../../oauth/grant-types.js';
import { parseScope } from '../../oauth/scope.js';
import { checkAccessToken } from '../core/tokens/access-token.js';
import type { MockClient } from '../core/config/config.js';
import { q, sendOAuthError, type Exchange } from '../core/http/http.js';
import { newJti } from '../core/tokens/jwt.js';
import { certificateThumbprint, peerCertificate } from '../core/clients/mtls.js';
import { sendServiceToken } from '../core/tokens/service-token.js';
import type { TokenBinding } from '../core/tokens/token-binding.js';
import { handleIdJagExchange } from './token-id-jag.js';

/**
 * grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693 section 2.1), for clients whose
 * grant_types allow it (handleToken checks). The subject token must be a live access token of this
 * server; the new token keeps its subject, carries `act` naming the actor when an actor token is given (section 4.1), and is
 * for the audience or resource asked, which the client's `token_exchange.audiences` must list (else
 * invalid_target); without either it is for the mock's own API. No refresh token.
 *
 * What the exchange may not do: widen scope beyond the subject token's or the exchanging client's
 * registration (RFC 6749 section 3.3); strip a sender constraint (a DPoP- or certificate-bound subject
 * token is exchanged only with proof of its key, RFC 9449 section 6 and RFC 8705 section 3); outlive
 * the subject token, or its refresh family (the new token joins the family, and is revoked with it).
 */
export async function handleTokenExchangeGrant(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding): Promise<void> {
  // An ID token for an ID-JAG: the mock as enterprise identity provider (token-id-jag.ts).
  if (values.get('requested_token_type') === ID_JAG_TOKEN_TYPE) return handleIdJagExchange(ex, client, values);
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
  const boundKey = subject.claims.cnf?.jkt;
  if (boundKey !== undefined && binding.jkt !== boundKey) {
    return sendOAuthError(ex, 400, 'invalid_request', 'the subject_token is DPoP-bound: the token exchange request needs a DPoP proof by its key (RFC 9449 section 6)');
  }
  const boundCertificate = subject.claims.cnf?.['x5t#S256'];
  if (boundCertificate !== undefined) {
    const peer = peerCertificate(ex);
    if (!peer || certificateThumbprint(peer.certificate) !== boundCertificate) {
      return sendOAuthError(ex, 400, 'invalid_request', 'the subject_token is bound to a client certificate that this connection did not present (RFC 8705 section 3)');
    }
  }

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
  // RFC 6749 section 3.3: no more than the subject token had, and no more than this client is registered for.
  const subjectScopes = parseScope(subject.claims.scope);
  const granted = subjectScopes.filter((s) => client.scopes.has(s));
  let scopes = granted;
  const asked = values.get('scope');
  if (asked !== undefined) {
    scopes = parseScope(asked);
    const beyondSubject = scopes.filter((s) => !subjectScopes.includes(s));
    if (beyondSubject.length > 0) return sendOAuthError(ex, 400, 'invalid_scope', `scope ${beyondSubject.join(' ')} is beyond the subject token's (${subjectScopes.join(' ')})`);
    const unregistered = scopes.filter((s) => !client.scopes.has(s));
    if (unregistered.length > 0) return sendOAuthError(ex, 400, 'invalid_scope', `client ${client.clientId} is not registered for scope ${unregistered.join(' ')}`);
  } else if (granted.length === 0 && subjectScopes.length > 0) {
    return sendOAuthError(ex, 400, 'invalid_scope', `client ${client.clientId} is registered for none of the subject token's scopes (${subjectScopes.join(' ')})`);
  }
  const { store } = ex.state;
  const nowSeconds = Math.floor(ex.state.now() / 1000);
  const lifetime = Math.max(1, subject.claims.exp - nowSeconds);
  const jti = newJti();
  const family = store.familyAccessTokens.get(subject.claims.jti)?.family;
  const familyRecord = family !== undefined ? store.families.get(family) : undefined;
  if (family !== undefined && familyRecord) {
    store.ensureRoomForTokens(false, true);
    store.addToFamily(family, familyRecord, jti, Math.min(subject.claims.exp, nowSeconds + ex.state.config.lifetimes.accessToken) * 1000);
  }
  await sendServiceToken(ex, client, {
    sub: subject.claims.sub,
    scopes,
    ...(target !== undefined ? { aud: target } : {}),
    authTime: subject.claims.auth_time,
    ...(act ? { act } : {}),
    extra: { issued_token_type: ACCESS_TOKEN_TYPE },
    binding,
    jti,
    lifetime,
  });
}
