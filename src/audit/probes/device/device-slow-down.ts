import { authorizeDevice, pollDevice } from '../../device.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 8628 section 3.5: a client that polls faster than `interval` is told slow_down (and must then
 * wait 5 seconds longer). The probe polls a pending device code twice at once.
 */
export const deviceSlowDownProbe: AuditProbe = {
  id: 'device-slow-down',
  title: 'polling faster than interval gets slow_down',
  rfc: 'RFC 8628 §3.5',
  category: 'device',
  threat: 'RFC 8628 §3.5; RFC 8628 §5.1 (brute force)',
  remedy: 'Answer slow_down to clients that poll faster than the interval.',
  async run(ctx) {
    const grant = await authorizeDevice(ctx);
    const first = await pollDevice(ctx, grant);
    const second = await pollDevice(ctx, grant);
    if (issuedTokens(first) || issuedTokens(second)) return fail('a device code nobody approved got tokens');
    const seen = `${describeExchange(first)}, then ${describeExchange(second)}`;
    if (first.error?.error === 'slow_down' || second.error?.error === 'slow_down') return pass(`two polls at once (interval ${grant.interval} s): ${seen}`);
    return warn(`two polls at once (interval ${grant.interval} s) got ${seen}: no slow_down, so nothing holds a client to the interval`);
  },
};
