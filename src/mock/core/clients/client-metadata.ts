import { isLoopbackHost } from '../../../oauth/loopback.js';
import { validateClient, type MockClient, type MockScope } from '../config/config.js';
import type { MockState } from '../http/http.js';
import { isJsonObject } from '../../../oauth/json.js';
import { redirectUriProblem } from '../../../oauth/redirect-uri.js';

/** Whether anyone may register (RFC 7591 section 3): config registration.open, by default when the mock is on loopback and has no initial access token. */
export function registrationOpen(state: MockState): boolean {
  const { open, initialAccessToken } = state.config.registration;
  return open ?? (initialAccessToken === undefined && isLoopbackHost(new URL(state.issuer).hostname));
}

/**
 * Client metadata (RFC 7591 section 2) sent by a client, from a registration request or a Client ID
 * Metadata Document, checked as the configuration file's clients are (validateClient): one rule for
 * both. Metadata the mock does not know is ignored (RFC 7591 section 2: "the authorization server
 * MUST ignore any client metadata sent by the client that it does not understand").
 */
export type ClientMetadataCheck = { ok: true; client: MockClient; metadata: Record<string, unknown> } | { ok: false; error: 'invalid_redirect_uri' | 'invalid_client_metadata'; description: string };

/** The fields the mock keeps and echoes; the flags pass to the configuration's checks as they are. */
const PASSED = ['client_name', 'token_endpoint_auth_method', 'jwks', 'jwks_uri', 'dpop_bound_access_tokens', 'require_pushed_authorization_requests', 'require_signed_request_object'];
/** Human-facing metadata, echoed when it is a string (RFC 7591 section 2). */
const ECHOED = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri', 'software_id', 'software_version', 'application_type'];

type Obj = Record<string, unknown>;

/**
 * Checks client metadata for `clientId`: redirect URIs exact, https (or http on loopback, or a private
 * scheme for a native app, RFC 8252 section 7), grant and response types that agree, an authentication
 * method the mock has, keys, names, `scope` among the mock's scopes. `defaultMethod` is RFC 7591's
 * client_secret_basic for registration, none for a metadata document.
 */
export function checkClientMetadata(input: unknown, clientId: string, secret: string | undefined, scopes: ReadonlyMap<string, MockScope>, defaultMethod: string): ClientMetadataCheck {
  const invalid = (description: string): ClientMetadataCheck => ({ ok: false, error: 'invalid_client_metadata', description });
  if (!isJsonObject(input)) return invalid('the client metadata must be a JSON object (RFC 7591 section 3.1)');
  const method = input.token_endpoint_auth_method ?? defaultMethod;
  const config: Obj = { client_id: clientId };
  for (const key of PASSED) if (input[key] !== undefined) config[key] = input[key];
  config.token_endpoint_auth_method = method;
  if (secret !== undefined) config.client_secret = secret;
  // RFC 7591 section 2: grant_types defaults to authorization_code, response_types to code.
  const grants = input.grant_types ?? ['authorization_code'];
  config.grant_types = grants;
  const responseTypes = input.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((t) => t !== 'code')) return invalid('response_types: the mock supports "code" only');
  if (Array.isArray(grants) && !grants.includes('authorization_code') && responseTypes.length > 0 && input.response_types !== undefined)
    return invalid('response_types has code but grant_types lacks authorization_code (RFC 7591 section 2.1)');
  if (input.scope !== undefined) {
    if (typeof input.scope !== 'string') return invalid('scope must be a space-separated string (RFC 7591 section 2)');
    config.scopes = input.scope.split(' ').filter((s) => s !== '');
  }
  const redirects = input.redirect_uris;
  if (redirects !== undefined) {
    if (!Array.isArray(redirects) || redirects.length > 20) return { ok: false, error: 'invalid_redirect_uri', description: 'redirect_uris must be an array of at most 20 absolute URLs' };
    for (const uri of redirects) {
      const problem = redirectUriProblem(uri);
      if (problem) return { ok: false, error: 'invalid_redirect_uri', description: `redirect_uris: ${JSON.stringify(uri).slice(0, 200)} ${problem}` };
    }
    config.redirect_uris = matchingRedirects(redirects as string[]);
  }
  const clients = new Map<string, MockClient>();
  const problems: string[] = [];
  validateClient(config, '$', scopes as Map<string, MockScope>, clients, (field, message) => problems.push(`${field.replace(/^\$\.?/, '')}: ${message}`));
  const client = clients.get(clientId);
  if (!client || problems.length > 0) {
    const first = problems[0] ?? 'the client metadata is not valid';
    return { ok: false, error: first.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata', description: first };
  }
  const metadata: Obj = { client_id: clientId };
  for (const key of [...PASSED, ...ECHOED]) if (input[key] !== undefined && (PASSED.includes(key) || typeof input[key] === 'string')) metadata[key] = input[key];
  Object.assign(metadata, { token_endpoint_auth_method: method, grant_types: grants, response_types: responseTypes });
  if (redirects !== undefined) metadata.redirect_uris = redirects;
  if (input.scope !== undefined) metadata.scope = input.scope;
  return { ok: true, client, metadata };
}

/**
 * What the authorization endpoint compares with: each URI as registered, and a loopback one also
 * without its port, so that a native app's listener may use any port (RFC 8252 section 7.3).
 */
function matchingRedirects(uris: string[]): string[] {
  const out = new Set(uris);
  for (const uri of uris) {
    const m = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}(\/[^#]*)?$/.exec(uri);
    if (m) out.add(`http://${m[1]}${m[2] ?? ''}`);
  }
  return [...out];
}
