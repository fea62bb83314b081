import { authorizeDevice } from '../../device.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** What RFC 8628 section 6.1 shows: 8 characters of 20 letters, about 34.5 bits. */
const ADVISED_BITS = 34;
/** Below this an online guess over the code's lifetime is realistic even with rate limits. */
const LEAST_BITS = 20;

/** The characters a user code draws from, judged by what it holds (BCDFGHJKLMNPQRSTVWXZ, digits, letters). */
function alphabetOf(code: string): number {
  const chars = code.replace(/[-\s]/g, '');
  if (/^[0-9]+$/.test(chars)) return 10;
  if (/^[BCDFGHJKLMNPQRSTVWXZ]+$/.test(chars)) return 20;
  if (/^[A-Z]+$/.test(chars)) return 26;
  if (/^[A-Z0-9]+$/.test(chars)) return 36;
  return 62;
}

/** RFC 8628 sections 5.1 and 6.1: the user code resists brute force over its lifetime. */
export const deviceUserCodeEntropyProbe: AuditProbe = {
  id: 'device-user-code-entropy',
  title: 'user codes hold enough entropy',
  rfc: 'RFC 8628 §6.1',
  category: 'device',
  threat: 'RFC 8628 §5.1 (user code brute force)',
  remedy: 'Use user codes of about 8 characters from a 20-letter alphabet (34 bits) and rate-limit the verification page.',
  async run(ctx) {
    const { userCode } = await authorizeDevice(ctx);
    const length = userCode.replace(/[-\s]/g, '').length;
    const bits = Math.floor(length * Math.log2(alphabetOf(userCode)));
    if (bits < LEAST_BITS) return fail(`user code ${JSON.stringify(userCode)} holds at most ${bits} bits`);
    if (bits < ADVISED_BITS) return warn(`user code of ${length} characters: at most ${bits} bits (RFC 8628 §6.1 shows 34.5)`);
    return pass(`user code of ${length} characters: up to ${bits} bits`);
  },
};
