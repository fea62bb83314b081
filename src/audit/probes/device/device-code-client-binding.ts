import { describeExchange, issuedTokens } from '../../exchanges.js';
import { authorizeDevice, completeUriOf } from '../../device.js';
import { DEVICE_CODE_GRANT } from '../../../oauth/grant-types.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 8628 section 3.4: the device code is redeemed by the client it was issued to, no other. */
export const deviceCodeClientBindingProbe: AuditProbe = {
  id: 'device-code-client-binding',
  title: 'an approved device code gets no tokens for another client',
  rfc: 'RFC 8628 §3.4',
  category: 'device',
  threat: 'RFC 6819 §5.2.4.4 (binding of grants to clients)',
  remedy: 'Check that the client polling a device code is the one it was issued to.',
  async run(ctx) {
    if (!ctx.secondClient) return skip('no second client (give --second-client-id and --second-client-secret)');
    const grant = await authorizeDevice(ctx);
    const page = await ctx.walkPage(completeUriOf(grant));
    if (page.kind === 'redirect' || page.status >= 400) return skip('the verification page did not approve the device (see device-code-single-use)');
    const stolen = await ctx.token({ grant_type: DEVICE_CODE_GRANT, device_code: grant.deviceCode }, ctx.secondClient);
    if (issuedTokens(stolen)) return fail(`client ${ctx.secondClient.clientId} got tokens for a device code of ${ctx.config.clientId}`);
    return pass(`refused for ${ctx.secondClient.clientId}: ${describeExchange(stolen)}`);
  },
};
