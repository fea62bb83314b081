import { constantTimeEqual } from '../../../oauth/pkce.js';
import { authenticateByAssertion } from './client-assertion.js';
import { tlsClientAuthProblem } from './mtls.js';
import type { MockClient, TokenEndpointAuthMethod } from '../config/config.js';
import { q, sendOAuthError, type Exchange } from '../http/http.js';

export const REALM = 'oauthctl-mock';
const DUMMY_SECRET = 'no such client: compare anyway';

/**
 * Client authentication at the token, PAR, introspection and revocation endpoints (RFC 6749 section 2.3):
 * client_secret_basic (section 2.3.1: id and secret form-urlencoded inside Basic), client_secret_post,
 * private_key_jwt and client_secret_jwt (RFC 7523, client-assertion.ts), tls_client_auth and
 * self_signed_tls_client_auth (RFC 8705, mtls.ts: client_id in the body, the certificate on the
 * connection), or none for public clients. A client with a secret and no token_endpoint_auth_method
 * accepts both secret methods, as Keycloak and Entra ID do; one that names a method accepts only that
 * one. A request uses one method only.
 * On failure the error response is sent (401 invalid_client, RFC 6749 section 5.2) and undefined returned.
 */
export async function authenticateClient(ex: Exchange, values: Map<string, string>): Promise<MockClient | undefined> {
  const header = ex.req.headers.authorization;
  let clientId = values.get('client_id');
  let secret = values.get('client_secret');
  let method: TokenEndpointAuthMethod = secret !== undefined ? 'client_secret_post' : 'none';
  const refuse = (description: string) => {
    sendOAuthError(ex, 401, 'invalid_client', description, { 'WWW-Authenticate': `Basic realm="${REALM}"` });
    return undefined;
  };
  const invalid = (description: string) => {
    sendOAuthError(ex, 400, 'invalid_request', description);
    return undefined;
  };
  if (values.has('client_assertion') || values.has('client_assertion_type')) {
    const outcome = await authenticateByAssertion(ex, values);
    if (outcome.ok) return outcome.client;
    if (outcome.status === 401) return refuse(outcome.description);
    sendOAuthError(ex, outcome.status, outcome.error, outcome.description);
    return undefined;
  }
  if (header !== undefined) {
    const basic = parseBasic(header);
    if (basic === undefined) return refuse('the Authorization header is not a valid Basic credential for client authentication (RFC 6749 section 2.3.1)');
    if (secret !== undefined) return invalid('the client used more than one authentication method (Basic header and client_secret in the body); use one (RFC 6749 section 2.3)');
    if (clientId !== undefined && clientId !== basic.clientId) return invalid('client_id in the body differs from the one in the Basic header');
    clientId = basic.clientId;
    secret = basic.clientSecret;
    method = 'client_secret_basic';
  }
  if (clientId === undefined) return refuse('no client authentication: send client_id (public client) or the client credentials');
  ex.log.clientId = clientId;
  const client = ex.state.config.clients.get(clientId);
  // Compared whether or not the client exists, so that the time taken does not tell (none: nothing to compare).
  const secretOk = method !== 'none' && constantTimeEqual(secret ?? '', client?.clientSecret ?? DUMMY_SECRET);
  if (!client) return refuse(`client_id ${q(clientId)} is not a registered client`);
  const methods = client.tokenEndpointAuthMethods;
  if (method === 'none' && (methods.includes('tls_client_auth') || methods.includes('self_signed_tls_client_auth'))) {
    const problem = await tlsClientAuthProblem(ex, client);
    return problem === undefined ? client : refuse(problem);
  }
  if (!methods.includes(method)) {
    return refuse(`client ${clientId} is registered for ${methods.join(' or ')}, but the request used ${method}`);
  }
  if (method !== 'none' && !secretOk) return refuse(`wrong client secret for client ${clientId}`);
  return client;
}

/** `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`, or undefined when malformed. */
export function parseBasic(header: string): { clientId: string; clientSecret: string } | undefined {
  const m = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    if (clientId === '') return undefined;
    return { clientId, clientSecret };
  } catch {
    return undefined;
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
