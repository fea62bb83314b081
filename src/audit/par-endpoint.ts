import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

/** The PAR endpoint (RFC 9126 section 5), or a skip when the server announces none. */
export function parEndpointOf(ctx: AuditContext): string {
  const endpoint = ctx.endpoint('pushed_authorization_request_endpoint');
  if (endpoint === undefined) throw new ProbeSkip('the server announces no pushed_authorization_request_endpoint (RFC 9126 section 5)');
  return endpoint;
}
