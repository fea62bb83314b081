import { httpsPagesOf } from '../../login-page.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** Set-Cookie values of a response (a header joined with ", " splits before each name=). */
function cookiesOf(header: string | undefined): string[] {
  return header === undefined ? [] : header.split(/,\s*(?=[^;,=\s]+=)/);
}

/** RFC 6265 sections 4.1.2.5 and 4.1.2.6: the session cookies of an https login carry Secure and HttpOnly. */
export const tlsCookieSecureProbe: AuditProbe = {
  id: 'tls-cookie-secure',
  title: 'cookies of the login pages are Secure and HttpOnly',
  rfc: 'RFC 6265 §4.1.2.5',
  category: 'tls',
  threat: 'RFC 6819 §4.4.1.5 (session hijacking through a cookie sent over http)',
  remedy: 'Set Secure and HttpOnly (and SameSite) on every session cookie.',
  async run(ctx) {
    const cookies = (await httpsPagesOf(ctx)).flatMap((res) => cookiesOf(res.headers['set-cookie']));
    if (cookies.length === 0) return pass('no cookies before the login');
    const name = (c: string) => c.split('=')[0]?.trim() ?? '';
    const notSecure = cookies.filter((c) => !/;\s*secure\s*(;|$)/i.test(c)).map(name);
    if (notSecure.length > 0) return fail(`without Secure: ${notSecure.join(', ')}`);
    const script = cookies.filter((c) => !/;\s*httponly\s*(;|$)/i.test(c)).map(name);
    if (script.length > 0) return warn(`without HttpOnly: ${script.join(', ')}`);
    return pass(`${cookies.map(name).join(', ')}: Secure, HttpOnly`);
  },
};
