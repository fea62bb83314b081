import { StuckOnPageError } from '../../../agent/headless/navigate.js';
import { USER_CODE_ALPHABET } from '../../../oauth/grant-types.js';
import { authorizeDevice, completeUriOf, pollDevice } from '../../device.js';
import { issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

const REFUSAL = /invalid|unknown|incorrect|wrong|not (found|valid|recogni[sz]ed)|no such|expired|try again/i;

/**
 * RFC 8628 section 5.1 and 3.3: the verification page accepts only user codes the server issued. The
 * probe opens it with a code of the same shape that was never issued (the real one, each character
 * shifted) and must end on a refusal, never on a login, consent or success page.
 */
export const deviceUnknownUserCodeProbe: AuditProbe = {
  id: 'device-unknown-user-code',
  title: 'unknown user code refused at the verification page',
  rfc: 'RFC 8628 §5.1',
  category: 'device',
  threat: 'RFC 8628 §5.1 (user code brute force)',
  remedy: 'Refuse unknown user codes on the verification page and rate-limit attempts.',
  async run(ctx) {
    const grant = await authorizeDevice(ctx);
    const complete = completeUriOf(grant);
    const forged = shift(grant.userCode);
    const url = replaceCode(complete, grant.userCode, forged);
    if (url === undefined) return skip('verification_uri_complete does not carry the user code as it was issued, so no forged code can be put in its place');
    const page = await ctx.walkPage(url).catch((err: unknown) => {
      if (err instanceof StuckOnPageError) return err;
      throw err;
    });
    const real = await pollDevice(ctx, grant);
    if (issuedTokens(real)) return fail(`opening the page with the forged code ${forged} approved the real device code`);
    // A refusal is not a failure: a page the user agent cannot read (its message filled in by script) did nothing unsafe.
    if (page instanceof StuckOnPageError) return skip(`the page for the forged code ${forged} cannot be read by the audit's user agent (${page.message}); the real device code was not approved`);
    if (page.kind === 'redirect') return fail(`the forged code ${forged} led off the verification page to ${page.url}`);
    if (page.status >= 400) return pass(`forged code ${forged} refused: HTTP ${page.status}${page.text ? ` ${JSON.stringify(page.text)}` : ''}`);
    if (REFUSAL.test(page.text)) return pass(`forged code ${forged} refused: ${JSON.stringify(page.text)}`);
    return fail(`the verification page went on with the forged code ${forged}: it ended at ${page.url} (HTTP ${page.status}) with ${JSON.stringify(page.text)}`);
  },
};

/** Each character moved one place in its class: same shape, never the same code. */
function shift(code: string): string {
  return [...code]
    .map((c) => {
      const i = USER_CODE_ALPHABET.indexOf(c.toUpperCase());
      if (i >= 0) return USER_CODE_ALPHABET[(i + 1) % USER_CODE_ALPHABET.length]!;
      if (/[0-9]/.test(c)) return String((Number(c) + 1) % 10);
      if (/[A-Za-z]/.test(c)) return c.toUpperCase() === 'B' ? 'C' : 'B';
      return c;
    })
    .join('');
}

function replaceCode(url: string, code: string, forged: string): string | undefined {
  for (const form of [code, encodeURIComponent(code)]) if (url.includes(form)) return url.split(form).join(form === code ? forged : encodeURIComponent(forged));
  return undefined;
}
