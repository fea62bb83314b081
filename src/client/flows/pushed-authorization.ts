import { FlowError, UsageError } from '../../errors.js';
import { assertionRefusalHint } from './assertion-refusal.js';
import { explainOAuthError, parseOAuthErrorBody } from '../../oauth/errors.js';
import { requestObjectClaims, signRequestObject } from '../../oauth/request-object.js';
import { escapeTerminal } from '../../output/escape.js';
import type { Renderer } from '../../output/render.js';
import { postAuthenticated } from './endpoint-request.js';
import { endpointOf } from './endpoints.js';
import { authorizationUrlOf, type FlowConfig } from './flow-config.js';
import type { HttpClient } from '../http/http.js';
import { JsonDepthError, parseJson } from '../../oauth/json.js';

/** A pushed authorization request's answer (RFC 9126 section 2.2). */
export interface PushedAuthorizationResponse {
  request_uri: string;
  expires_in: number;
}

/**
 * The URL the user agent is sent to. Plain: every parameter in the query. With --jar: the parameters
 * in a signed request object, by value (RFC 9101 section 5.1). With --par: the parameters (or the
 * request object) pushed first, and only client_id and request_uri in the URL (RFC 9126 section 4).
 */
export async function prepareAuthorizationUrl(http: HttpClient, config: FlowConfig, redirectUri: string, renderer: Renderer): Promise<string> {
  const plain = new URL(authorizationUrlOf(config, redirectUri));
  if (!config.par && !config.jar) return plain.href;
  const params = new URLSearchParams(plain.search);
  const sent = config.jar ? await requestObjectParams(config, params, renderer) : params;
  if (!config.par) return frontChannelUrl(config.authorizationEndpoint, config.clientId, sent);
  const pushed = await pushAuthorizationRequest(http, config, sent, renderer);
  return frontChannelUrl(config.authorizationEndpoint, config.clientId, [['request_uri', pushed.request_uri]]);
}

/**
 * The request the user agent is sent with when its parameters travel elsewhere: client_id and the
 * signed request object (RFC 9101 section 5.1), or client_id and the pushed request_uri (RFC 9126 section 4).
 */
export function frontChannelUrl(authorizationEndpoint: string, clientId: string, params: Iterable<[string, string]>): string {
  const front = new URL(authorizationEndpoint);
  front.searchParams.set('client_id', clientId);
  for (const [name, value] of params) if (name !== 'client_id') front.searchParams.set(name, value);
  return front.href;
}

/** RFC 9101 section 4: client_id and the signed request object; OpenID Connect also wants response_type and scope outside (Core section 6.1). */
export async function requestObjectParams(config: FlowConfig, params: URLSearchParams, renderer: Renderer): Promise<URLSearchParams> {
  if (config.signingKey === undefined) throw new UsageError('--jar needs --signing-key FILE');
  const audience = config.issuer ?? config.metadata?.issuer ?? config.authUrl;
  if (audience === undefined) throw new UsageError("--jar needs the issuer as the request object's audience", 'give --issuer or --auth-url');
  const claims = requestObjectClaims(params, config.clientId, audience, Math.floor(Date.now() / 1000));
  renderer.info(`request object (RFC 9101), signed ${config.signingKey.alg}${config.signingKey.kid !== undefined ? ` kid ${config.signingKey.kid}` : ''}: claims ${JSON.stringify(claims)}`);
  const out = new URLSearchParams({ client_id: config.clientId, request: await signRequestObject(claims, config.signingKey) });
  if (config.scopes.includes('openid')) {
    out.set('response_type', params.get('response_type') ?? 'code');
    out.set('scope', params.get('scope') ?? '');
  }
  return out;
}

/** RFC 9126 section 2: POSTs the authorization request, with client authentication, to the PAR endpoint. */
export async function pushAuthorizationRequest(http: HttpClient, config: FlowConfig, params: URLSearchParams, renderer: Renderer): Promise<PushedAuthorizationResponse> {
  const endpoint = await endpointOf(http, config, 'pushed_authorization_request_endpoint');
  if (endpoint === undefined) {
    throw new UsageError('--par: no pushed authorization request endpoint known', 'give --par-endpoint URL, or --issuer of a server whose metadata names pushed_authorization_request_endpoint');
  }
  const form: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    form[name] = values.length > 1 ? values : (values[0] ?? '');
  }
  renderer.step('Pushed authorization request');
  renderer.info(`POST ${endpoint} (client authentication: ${config.authMethod})`);
  for (const [name, value] of params) renderer.info(`  ${name}=${name === 'request' ? redactJws(value, renderer.showSecrets) : value}`);
  const res = await postAuthenticated(http, config, endpoint, form, { renderer });
  let json: unknown;
  try {
    json = parseJson(res.body, 'the pushed authorization response');
  } catch (err) {
    if (err instanceof JsonDepthError) throw new FlowError(err.message);
    json = undefined;
  }
  const error = parseOAuthErrorBody(json);
  if (error) {
    const meaning = explainOAuthError(error.error);
    const text = `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
    const assertion = error.error === 'invalid_client' ? assertionRefusalHint(config) : undefined;
    throw new FlowError(`the PAR endpoint answered HTTP ${res.status} ${escapeTerminal(text)}`, [meaning ?? 'see the authorization server for details', assertion].filter(Boolean).join('; '));
  }
  const o = (json ?? {}) as Record<string, unknown>;
  if (res.status !== 201 && res.status !== 200) throw new FlowError(`the PAR endpoint answered HTTP ${res.status} without an RFC 6749 error object`, 'run with --verbose to see it');
  if (typeof o.request_uri !== 'string' || o.request_uri === '') throw new FlowError('the PAR response has no request_uri (RFC 9126 section 2.2)', 'run with --verbose to see it');
  const expiresIn = typeof o.expires_in === 'number' ? o.expires_in : 0;
  renderer.info(`request_uri=${escapeTerminal(o.request_uri)} (expires in ${expiresIn} s)`);
  return { request_uri: o.request_uri, expires_in: expiresIn };
}

/** A JWS shown without its signature unless --show-secrets. */
function redactJws(jws: string, show: boolean): string {
  if (show) return jws;
  return jws.replace(/^([\w-]+\.[\w-]+)\.[\w-]+$/, (_, signed: string) => `${signed}.[signature redacted]`);
}
