import type { AuditContext } from './context.js';
import type { IssuedCode } from './exchanges.js';
import { ProbeSkip } from './probe-errors.js';

/** The PAR probes skip on a server without a PAR endpoint (RFC 9126 section 5): neither the flag nor the metadata names one. */
function requirePushEndpoint(ctx: AuditContext): void {
  const endpoint = ctx.config.endpoints.pushed_authorization_request_endpoint ?? ctx.metadata?.pushed_authorization_request_endpoint;
  if (endpoint === undefined) throw new ProbeSkip('the server advertises no pushed_authorization_request_endpoint (RFC 9126 section 5)');
}

export interface Pushed {
  requestUri: string;
  expiresIn: number;
  pkce: IssuedCode['pkce'];
}

/**
 * Pushes the client's usual authorization request (RFC 9126 section 2.1). A refusal skips the probe:
 * with nothing pushed there is no request_uri whose handling it could check.
 */
export async function push(ctx: AuditContext): Promise<Pushed> {
  requirePushEndpoint(ctx);
  const pkce = ctx.usesPkce ? ctx.freshPkce() : undefined;
  const pushed = await ctx.pushRequest(ctx.authorizationUrl({ pkce: pkce ?? null }));
  if (pushed.kind !== 'pushed') throw new ProbeSkip(`nothing to test: the pushed authorization request was refused (${pushed.text})`);
  return { requestUri: pushed.requestUri, expiresIn: pushed.expiresIn, pkce };
}
