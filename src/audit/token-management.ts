import { postAuthenticated } from '../client/flows/endpoint-request.js';
import type { HttpResponse } from '../client/http/http.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

/** The revocation (RFC 7009) or introspection (RFC 7662) endpoint, or a skip when the server announces none. */
export function managementEndpoint(ctx: AuditContext, name: 'revocation_endpoint' | 'introspection_endpoint'): string {
  const endpoint = ctx.endpoint(name);
  if (endpoint === undefined) throw new ProbeSkip(`the server announces no ${name} (give --${name.replace('_', '-')} URL if it has one)`);
  return endpoint;
}

/** RFC 7009 section 2.1: a revocation request of `client` (the audit's by default). */
export function revoke(ctx: AuditContext, token: string, hint: 'access_token' | 'refresh_token', client: ClientCredentials = ctx.client): Promise<HttpResponse> {
  return postAuthenticated(ctx.http, client, managementEndpoint(ctx, 'revocation_endpoint'), { token, token_type_hint: hint });
}
