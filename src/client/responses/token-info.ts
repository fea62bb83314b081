import { FlowError } from '../../errors.js';
import { explainOAuthError, parseOAuthErrorBody } from '../../oauth/errors.js';
import { revocationParams } from '../../oauth/revocation.js';
import type { ClientCredentials } from '../../oauth/token-request.js';
import { postAuthenticated } from '../flows/endpoint-request.js';
import type { HttpClient, HttpResponse } from '../http/http.js';
import { JsonDepthError, parseJson } from '../../oauth/json.js';
import { escapeTerminal } from '../../output/escape.js';
import type { Renderer } from '../../output/render.js';
import type { DpopSession } from '../flows/dpop.js';
import { explainChallenge } from '../resources/resource-challenge.js';
import { sendWithAccessToken } from '../resources/resource-request.js';

/** RFC 7662 section 2.2: the introspection response; only `active` is required. */
export interface IntrospectionResponse {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  nbf?: number;
  sub?: string;
  aud?: string | string[];
  iss?: string;
  jti?: string;
  [name: string]: unknown;
}

/** RFC 7662 section 2.1: asks the server about a token; the client authenticates as at the token endpoint. */
export async function introspectToken(http: HttpClient, client: ClientCredentials, endpoint: string, token: string, tokenTypeHint?: string): Promise<IntrospectionResponse> {
  const res = await postAuthenticated(http, client, endpoint, { token, token_type_hint: tokenTypeHint });
  const json = jsonObject(res, 'introspection');
  if (typeof json.active !== 'boolean') throw new FlowError('the introspection response has no boolean active (RFC 7662 section 2.2)', 'check --introspection-endpoint');
  return json as IntrospectionResponse;
}

/**
 * OpenID Connect Core section 5.3: the claims about the user the access token stands for. A DPoP-bound
 * token goes as `Authorization: DPoP` with a proof of `dpop`, its key (RFC 9449 section 7.1); a refusal
 * says what the endpoint's WWW-Authenticate challenge asks for.
 */
export async function fetchUserinfo(http: HttpClient, endpoint: string, accessToken: string, dpop?: DpopSession, renderer?: Renderer): Promise<Record<string, unknown>> {
  const res = await sendWithAccessToken(http, endpoint, { method: 'GET', headers: { accept: 'application/json' } }, accessToken, dpop, renderer);
  if (res.status === 401 || res.status === 403) {
    const { detail, hint } = explainChallenge(res.headers['www-authenticate'], dpop ? 'DPoP' : 'Bearer', 'the access token must be live and carry the openid scope; log in again');
    throw new FlowError(`the userinfo endpoint answered HTTP ${res.status} (${escapeTerminal(detail)})`, hint);
  }
  return jsonObject(res, 'userinfo');
}

/** How a caller names a server it could not reach: `cannot reach the server to revoke {what}`, and what to do. */
export interface UnreachableText {
  what: string;
  hint: string;
}

/**
 * RFC 7009 section 2.1: revokes a token; 200 whether or not the token was valid (section 2.2). Any
 * other answer is a FlowError naming the server's error, with `hint` as what to do; a server that
 * cannot be reached is told with `unreachable` when given, else as the HTTP client tells it.
 */
export async function revokeToken(
  http: HttpClient,
  client: ClientCredentials,
  endpoint: string,
  token: string,
  tokenTypeHint: string | undefined,
  hint = 'check --revocation-endpoint and the client authentication',
  unreachable?: UnreachableText,
): Promise<void> {
  const res = await postAuthenticated(http, client, endpoint, revocationParams(token, tokenTypeHint)).catch((err: unknown) => {
    if (!unreachable) throw err;
    throw new FlowError(`cannot reach the server to revoke ${unreachable.what}: ${err instanceof Error ? err.message : String(err)}`, unreachable.hint);
  });
  if (res.status === 200) return;
  const error = errorOf(res);
  const what = error ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''}` : `HTTP ${res.status}`;
  const meaning = error ? explainOAuthError(error.error) : undefined;
  throw new FlowError(`revoking the ${tokenTypeHint ?? 'token'} failed: ${what}${meaning ? ` (${meaning})` : ''}`, hint);
}

function errorOf(res: HttpResponse): ReturnType<typeof parseOAuthErrorBody> {
  try {
    return parseOAuthErrorBody(parseJson(res.body, `the answer of ${res.url}`));
  } catch (err) {
    if (err instanceof JsonDepthError) throw new FlowError(err.message);
    return undefined;
  }
}

/** A 200 JSON object, or a FlowError with the server's error (RFC 6749 section 5.2 shape) or status. */
function jsonObject(res: HttpResponse, what: string): Record<string, unknown> {
  const error = errorOf(res);
  if (error) {
    const meaning = explainOAuthError(error.error);
    throw new FlowError(`the ${what} endpoint answered HTTP ${res.status} ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`, meaning);
  }
  let json: unknown;
  try {
    json = parseJson(res.body);
  } catch {
    json = undefined;
  }
  if (res.status !== 200 || !json || typeof json !== 'object' || Array.isArray(json)) {
    throw new FlowError(`the ${what} endpoint answered HTTP ${res.status} without a JSON object`, 'run with --verbose to see the exchange');
  }
  return json as Record<string, unknown>;
}
