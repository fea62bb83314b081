import { parseScope } from '../../../oauth/scope.js';
import type { MockClient } from '../config/config.js';
import { q, sendOAuthError, type Exchange } from '../http/http.js';

/**
 * The scope of a request made at the token or device authorization endpoint (RFC 6749 section 3.3):
 * known scopes the client may ask for; absent, the client's own default `fallback`. Sends invalid_scope
 * and returns undefined otherwise.
 */
export function checkRequestedScope(ex: Exchange, client: MockClient, requested: string | undefined, fallback: readonly string[] = [...client.scopes]): string[] | undefined {
  if (requested === undefined) return [...fallback];
  const scopes = parseScope(requested);
  const unknown = scopes.filter((s) => !ex.state.config.scopes.has(s));
  if (unknown.length > 0) return void sendOAuthError(ex, 400, 'invalid_scope', `unknown scope ${unknown.map(q).join(', ')}: list it under "scopes" in the mock's --config (RFC 6749 section 3.3)`);
  const notAllowed = scopes.filter((s) => !client.scopes.has(s));
  if (notAllowed.length > 0) return void sendOAuthError(ex, 400, 'invalid_scope', `client ${client.clientId} may not request scope ${notAllowed.map(q).join(', ')}`);
  return scopes;
}
