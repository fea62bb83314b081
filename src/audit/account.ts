import type { Credentials } from '../agent/headless/forms.js';
import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

/**
 * The user's account, for the probes that send it themselves (the password grant, CIBA's login_hint).
 * The audit asks for it only when a login form appears, so a server that logs in by itself (serve-mock
 * --auto-login) is audited without one, and these probes say what they lacked.
 */
export function accountOf(ctx: AuditContext): Credentials {
  if (ctx.credentials === undefined) throw new ProbeSkip("needs the user's account (--username and --password), which was not given: the server logged in without one");
  return ctx.credentials;
}
