import { describeExchange, issuedTokens } from '../../exchanges.js';
import { authorizeDevice, pollDevice } from '../../device.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 8628 section 3.5: before the user approves, a poll gets authorization_pending, never tokens. */
export const devicePendingProbe: AuditProbe = {
  id: 'device-pending',
  title: 'a device code not yet approved gets authorization_pending',
  rfc: 'RFC 8628 §3.5',
  category: 'device',
  threat: 'RFC 8628 §5.4 (tokens without the user’s approval)',
  remedy: 'Answer polls before approval with HTTP 400 authorization_pending.',
  async run(ctx) {
    const poll = await pollDevice(ctx, await authorizeDevice(ctx));
    if (issuedTokens(poll)) return fail('a device code nobody approved got tokens');
    const error = poll.error?.error;
    if (error === 'authorization_pending' || error === 'slow_down') return pass(describeExchange(poll));
    return warn(`refused with ${describeExchange(poll)}, not authorization_pending: a client would stop polling`);
  },
};
