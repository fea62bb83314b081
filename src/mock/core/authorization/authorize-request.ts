import { codeVerifierProblem, type CodeChallengeMethod } from '../../../oauth/pkce.js';
import { parseScope } from '../../../oauth/scope.js';
import type { MockClient, MockConfig } from '../config/config.js';
import { q } from '../http/http.js';
import { parseAuthorizationDetailsParam, unknownAuthorizationDetailTypes } from '../../../oauth/authorization-details.js';
import { isJarmResponseMode, jarmDelivery, type JarmResponseMode } from '../../../oauth/jarm.js';
import { parseOidcParams } from './oidc-params.js';
import { matchRedirectUri } from '../clients/redirect-uri.js';
import type { AuthorizationRequest } from '../store/store.js';

/**
 * The outcome of checking an authorization request (RFC 6749 section 4.1.1), in the order real servers
 * check: client and redirect URI first, because until both are known good the server must not
 * redirect (section 4.1.2.1, an error page instead); then errors that redirect.
 */
export type AuthorizeCheck =
  | { kind: 'page'; message: string; clientId?: string; registeredRedirectUris?: readonly string[] }
  | { kind: 'redirect-error'; client: MockClient; redirectUri: string; state?: string; error: string; description: string; formPost?: boolean; jarm?: JarmResponseMode }
  | { kind: 'ok'; client: MockClient; request: AuthorizationRequest };

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);

export function checkAuthorizationRequest(values: Map<string, string>, duplicate: string | undefined, config: MockConfig): AuthorizeCheck {
  const clientId = values.get('client_id');
  if (duplicate === 'client_id' || duplicate === 'redirect_uri') {
    return { kind: 'page', message: `the ${duplicate} parameter is sent more than once (RFC 6749 section 3.1)`, ...(clientId ? { clientId } : {}) };
  }
  if (!clientId) return { kind: 'page', message: 'the request has no client_id parameter' };
  const client = config.clients.get(clientId);
  if (!client) return { kind: 'page', message: `client_id ${q(clientId)} is not a registered client`, clientId };
  if (!client.grantTypes.has('authorization_code')) return { kind: 'page', message: `client ${q(clientId)} is not registered for the authorization_code grant (unauthorized_client)`, clientId };
  const redirectUri = values.get('redirect_uri');
  if (!redirectUri) return { kind: 'page', message: 'the request has no redirect_uri parameter (this server requires it)', clientId };
  if (!matchRedirectUri(client.redirectUris, redirectUri)) {
    return { kind: 'page', message: `redirect_uri ${q(redirectUri)} is not registered for client ${q(clientId)}`, clientId, registeredRedirectUris: client.redirectUris };
  }

  const state = duplicate === 'state' ? undefined : values.get('state');
  // OAuth 2.0 Form Post Response Mode section 2: errors too go back by form post.
  const responseMode = values.get('response_mode');
  // JARM section 2.3: the signed modes; errors too go back signed.
  const jarm = isJarmResponseMode(responseMode) ? responseMode : undefined;
  const formPost = responseMode === 'form_post' || (jarm !== undefined && jarmDelivery(jarm) === 'form_post');
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect-error',
    client,
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    error,
    description,
    ...(formPost ? { formPost } : {}),
    ...(jarm !== undefined ? { jarm } : {}),
  });
  if (duplicate) return fail('invalid_request', `the ${duplicate} parameter is sent more than once (RFC 6749 section 3.1)`);

  const responseType = values.get('response_type');
  if (!responseType) return fail('invalid_request', 'response_type is missing; send response_type=code');
  if (responseType !== 'code') {
    return fail(
      'unsupported_response_type',
      `response_type ${q(responseType)} is not supported: only the authorization code flow (response_type=code) is, with PKCE for public clients; the implicit flow is not (RFC 9700 section 2.1.2)`,
    );
  }
  // fragment is refused for code (OAuth 2.0 Multiple Response Type Encoding Practices section 5).
  if (responseMode !== undefined && responseMode !== 'query' && !formPost && jarm === undefined) {
    return fail('invalid_request', `response_mode ${q(responseMode)} is not supported; use query, form_post or a JWT mode (jwt, query.jwt, fragment.jwt, form_post.jwt)`);
  }
  if (values.has('request') || values.has('request_uri')) return fail('invalid_request', 'request objects (request, request_uri) are not supported');
  if (state === undefined) return fail('invalid_request', 'state is missing; send a fresh unguessable value with every request (RFC 6749 section 10.12)');

  const scopeParam = values.get('scope');
  // RFC 6749 section 3.3: without scope, the client's default_scopes, or invalid_scope when it has none.
  if (!scopeParam && client.defaultScopes.length === 0) {
    return fail('invalid_scope', `scope is missing and client ${client.clientId} has no default_scopes; request one or more of: ${[...client.scopes].join(' ')} (RFC 6749 section 3.3)`);
  }
  const scopes = scopeParam ? parseScope(scopeParam) : [...client.defaultScopes];
  const unknown = scopes.filter((s) => !config.scopes.has(s));
  if (unknown.length > 0) return fail('invalid_scope', `unknown scope ${unknown.map(q).join(', ')}: list it under "scopes" in the mock's --config (RFC 6749 section 3.3)`);
  const notAllowed = scopes.filter((s) => !client.scopes.has(s));
  if (notAllowed.length > 0) return fail('invalid_scope', `client ${client.clientId} may not request scope ${notAllowed.map(q).join(', ')}`);

  const pkce = checkPkce(values, client);
  if (typeof pkce === 'string') return fail('invalid_request', pkce);

  const prompt = new Set(parseScope(values.get('prompt')));
  for (const p of prompt) if (!PROMPTS.has(p)) return fail('invalid_request', `prompt value ${q(p)} is not supported`);
  if (prompt.has('none') && prompt.size > 1) return fail('invalid_request', 'prompt=none cannot be combined with other prompt values (OpenID Connect Core 3.1.2.1)');

  const oidc = parseOidcParams(values);
  if (typeof oidc === 'string') return fail('invalid_request', oidc);

  // RFC 9396 section 5: a malformed object or a type the server does not know.
  const detailsParam = values.get('authorization_details');
  const details = detailsParam === undefined ? undefined : parseAuthorizationDetailsParam(detailsParam);
  if (typeof details === 'string') return fail('invalid_authorization_details', details);
  const unknownTypes = details === undefined ? [] : unknownAuthorizationDetailTypes(details, config.authorizationDetailsTypes);
  if (unknownTypes.length > 0) return fail('invalid_authorization_details', `authorization_details type ${unknownTypes.map(q).join(', ')} is not supported (RFC 9396 section 5)`);

  const nonce = values.get('nonce');
  const request: AuthorizationRequest = { clientId, redirectUri, state, scopes, prompt };
  if (formPost) request.formPost = true;
  if (jarm !== undefined) request.responseMode = jarm;
  if (details !== undefined) request.authorizationDetails = details;
  if (oidc.maxAge !== undefined) request.maxAge = oidc.maxAge;
  if (oidc.loginHint !== undefined) request.loginHint = oidc.loginHint;
  if (oidc.acrValues !== undefined) request.acrValues = oidc.acrValues;
  if (oidc.claims !== undefined) request.claims = oidc.claims;
  if (pkce.codeChallenge !== undefined) request.codeChallenge = pkce.codeChallenge;
  if (pkce.codeChallengeMethod !== undefined) request.codeChallengeMethod = pkce.codeChallengeMethod;
  if (nonce !== undefined) request.nonce = nonce;
  return { kind: 'ok', client, request };
}

/** RFC 7636 section 4.3 and 4.4.1, strict: S256 unless the client allows plain, and a challenge when PKCE is required. */
function checkPkce(values: Map<string, string>, client: MockClient): string | { codeChallenge?: string; codeChallengeMethod?: CodeChallengeMethod } {
  const challenge = values.get('code_challenge');
  const method = values.get('code_challenge_method');
  if (challenge === undefined) {
    if (method !== undefined) return 'code_challenge_method is sent without a code_challenge';
    if (client.requirePkce) return `client ${client.clientId} must use PKCE: send code_challenge and code_challenge_method=S256 (RFC 7636 section 4.3)`;
    return {};
  }
  if (method === undefined) {
    // RFC 7636 section 4.3: an absent method means plain.
    if (!client.allowPlainPkce) return 'code_challenge_method is missing, which means plain; send code_challenge_method=S256';
  } else if (method !== 'S256' && method !== 'plain') {
    return `code_challenge_method ${q(method)} is not supported; use S256`;
  } else if (method === 'plain' && !client.allowPlainPkce) {
    return `code_challenge_method plain is not allowed for client ${client.clientId}; use S256 (RFC 7636 section 7.2)`;
  }
  const codeChallengeMethod: CodeChallengeMethod = method === 'S256' ? 'S256' : 'plain';
  if (codeChallengeMethod === 'S256' && !S256_CHALLENGE.test(challenge)) {
    return 'code_challenge must be 43 base64url characters: BASE64URL(SHA256(code_verifier)) without padding (RFC 7636 section 4.2)';
  }
  if (codeChallengeMethod === 'plain') {
    // The plain challenge is the verifier itself, so the verifier's rule applies (RFC 7636 section 4.2).
    const problem = codeVerifierProblem(challenge);
    if (problem) return `code_challenge (plain) is not a valid code verifier: ${problem}`;
  }
  return { codeChallenge: challenge, codeChallengeMethod };
}
