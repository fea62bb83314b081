import { authorizeDevice } from '../../device.js';
import { judgeEntropy } from '../../entropy.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 8628 section 5.2 with RFC 6749 section 10.10: a device code cannot be guessed. */
export const deviceCodeEntropyProbe: AuditProbe = {
  id: 'device-code-entropy',
  title: 'device codes are long and random enough',
  rfc: 'RFC 8628 §5.2',
  category: 'device',
  threat: 'RFC 8628 §5.2 (device code brute force); RFC 6749 §10.10',
  remedy: 'Make device codes of at least 128 random bits.',
  async run(ctx) {
    const codes = [(await authorizeDevice(ctx)).deviceCode, (await authorizeDevice(ctx)).deviceCode];
    const verdict = judgeEntropy('device code', codes);
    return verdict.ok ? pass(verdict.detail) : fail(verdict.detail);
  },
};
