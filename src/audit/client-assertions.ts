import { usesClientAssertion } from '../oauth/token-request.js';
import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

/** The client-assertion probes run when the audited client authenticates with a JWT (--auth-method private_key_jwt or client_secret_jwt). */
export function requireJwtClient(ctx: AuditContext): void {
  const method = ctx.client.authMethod;
  if (!usesClientAssertion(method))
    throw new ProbeSkip(`the client authenticates with ${method}; give --auth-method private_key_jwt --signing-key FILE (or client_secret_jwt) to probe JWT client authentication`);
}
