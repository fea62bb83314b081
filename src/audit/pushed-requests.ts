import { clientAssertionClaims, signClientAssertion } from '../oauth/client-assertion.js';
import { buildAuthenticatedRequest, usesClientAssertion, type ClientCredentials } from '../oauth/token-request.js';
import { describeResponse } from './outcomes.js';
import type { AuditContext, IssuedCode } from './context.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';

/** The PAR endpoint (RFC 9126 section 5): the flag, else the metadata; the probes skip without one. */
export function parEndpoint(ctx: AuditContext): string {
  const endpoint = ctx.config.endpoints.pushed_authorization_request_endpoint ?? ctx.metadata?.pushed_authorization_request_endpoint;
  if (endpoint === undefined) throw new ProbeSkip('the server advertises no pushed_authorization_request_endpoint (RFC 9126 section 5)');
  return endpoint;
}

export interface Pushed {
  requestUri: string;
  expiresIn: number;
  pkce: IssuedCode['pkce'];
}

/** Pushes the client's usual authorization request (RFC 9126 section 2.1) as `client`; a refusal fails the probe. */
export async function push(ctx: AuditContext, client: ClientCredentials = ctx.client): Promise<Pushed> {
  const endpoint = parEndpoint(ctx);
  const pkce = ctx.usesPkce ? ctx.freshPkce() : undefined;
  const params = Object.fromEntries(new URL(ctx.authorizationUrl({ clientId: client.clientId, pkce: pkce ?? null })).searchParams);
  const clientAssertion = usesClientAssertion(client.authMethod)
    ? await signClientAssertion(client, clientAssertionClaims(client.clientId, client.assertionAudience ?? ctx.issuer ?? endpoint, Math.floor(Date.now() / 1000)))
    : undefined;
  const req = buildAuthenticatedRequest(endpoint, client, params, { clientAssertion });
  const res = await ctx.http.request(req.url, { method: req.method, headers: req.headers, body: req.body });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    // reported below
  }
  ctx.trace(`audit: pushed authorization request -> HTTP ${res.status}`);
  if (res.status !== 201 || typeof json.request_uri !== 'string') throw new ProbeFailure(`the pushed authorization request was refused: ${describeResponse(res.status, res.body)}`);
  return { requestUri: json.request_uri, expiresIn: typeof json.expires_in === 'number' ? json.expires_in : 0, pkce };
}

/** The front-channel request after a push: only client_id and request_uri (RFC 9126 section 4). */
export function pushedAuthorizationUrl(ctx: AuditContext, clientId: string, requestUri: string): string {
  const url = new URL(ctx.config.authorizationEndpoint);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('request_uri', requestUri);
  return url.href;
}
