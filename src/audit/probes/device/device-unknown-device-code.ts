import { describeExchange, issuedTokens } from '../../exchanges.js';
import { deviceEndpointOf } from '../../device.js';
import { DEVICE_CODE_GRANT } from '../../../oauth/grant-types.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 8628 section 3.5: a device code the server never issued gets no tokens. */
export const deviceUnknownDeviceCodeProbe: AuditProbe = {
  id: 'device-unknown-device-code',
  title: 'a made-up device code gets no tokens',
  rfc: 'RFC 8628 §3.5',
  category: 'device',
  threat: 'RFC 8628 §5.2 (device code guessing)',
  remedy: 'Refuse unknown device codes with invalid_grant (or expired_token).',
  async run(ctx) {
    deviceEndpointOf(ctx);
    const poll = await ctx.token({ grant_type: DEVICE_CODE_GRANT, device_code: 'oauthctl-audit-made-up-device-code' });
    if (issuedTokens(poll)) return fail('a made-up device code got tokens');
    if (poll.status >= 500) return fail(`the server failed: ${describeExchange(poll)}`);
    return pass(describeExchange(poll));
  },
};
