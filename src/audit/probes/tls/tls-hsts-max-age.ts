import { httpsPagesOf } from '../../login-page.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** A year: what browsers' preload lists ask for, and long enough to cover a user's visits. */
const YEAR_SECONDS = 31_536_000;

/** RFC 6797 section 6.1.1: Strict-Transport-Security with a max-age long enough to protect the next visit. */
export const tlsHstsMaxAgeProbe: AuditProbe = {
  id: 'tls-hsts-max-age',
  title: 'HSTS on the login page lasts at least a year',
  rfc: 'RFC 6797 §6.1.1',
  category: 'tls',
  threat: 'RFC 6819 §5.1.1 (TLS stripping of the login page); RFC 6797 §2.3',
  remedy: 'Send Strict-Transport-Security: max-age=31536000; includeSubDomains on every page.',
  async run(ctx) {
    const pages = await httpsPagesOf(ctx);
    const page = pages[pages.length - 1]!;
    const hsts = page.headers['strict-transport-security'];
    if (hsts === undefined) return skip('no Strict-Transport-Security at all (the tls probe reports it)');
    const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(hsts)?.[1] ?? 0);
    if (maxAge < YEAR_SECONDS) return warn(`Strict-Transport-Security: ${hsts} (max-age under a year)`);
    return pass(`Strict-Transport-Security: ${hsts}`);
  },
};
