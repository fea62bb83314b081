import { push } from '../../pushed-requests.js';
import { codeOf } from '../../outcomes.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/** RFC 9126 section 4: a request_uri is for one authorization request (SHOULD be one-time use). */
export const parSingleUseProbe: AuditProbe = {
  id: 'par-single-use',
  title: 'pushed request_uri works once only',
  rfc: 'RFC 9126 §4',
  category: 'par',
  threat: 'RFC 9126 §4 (request_uri replay)',
  remedy: 'Let a request_uri be used once only.',
  needsFlow: true,
  async run(ctx) {
    const pushed = await push(ctx);
    const url = ctx.pushedAuthorizationUrl(ctx.config.clientId, pushed.requestUri);
    const first = await ctx.walk(url);
    if (codeOf(first) === undefined) return skip(`nothing to reuse: the first use of the request_uri got no code (${refusal(first) ?? 'no redirect'})`);
    const second = await ctx.walk(url);
    if (codeOf(second) !== undefined) return warn('the same request_uri got a second code (RFC 9126 section 4: it SHOULD be one-time use)');
    return pass(`second use refused: ${refusal(second)}`);
  },
};
