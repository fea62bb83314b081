import { ProbeSkip } from '../../probe-errors.js';
import { push } from '../../pushed-requests.js';
import { codeOf } from '../../outcomes.js';
import { fail, pass, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/** RFC 9126 section 4: the server checks that the request_uri was pushed by the client that uses it. */
export const parClientBindingProbe: AuditProbe = {
  id: 'par-client-binding',
  title: 'another client cannot use a pushed request_uri',
  rfc: 'RFC 9126 §4',
  category: 'par',
  threat: 'RFC 9126 §4',
  remedy: 'Refuse a request_uri presented with another client_id than the one that pushed it.',
  needsFlow: true,
  async run(ctx) {
    const other = ctx.secondClient;
    if (!other) throw new ProbeSkip('needs a second registered client (--second-client-id)');
    const pushed = await push(ctx);
    const outcome = await ctx.walk(ctx.pushedAuthorizationUrl(other.clientId, pushed.requestUri));
    if (codeOf(outcome) !== undefined) return fail(`client ${other.clientId} got a code with a request_uri pushed by ${ctx.config.clientId}`);
    return pass(`refused for ${other.clientId}: ${refusal(outcome)}`);
  },
};
