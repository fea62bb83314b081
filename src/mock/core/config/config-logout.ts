import { matchRedirectUri } from '../clients/redirect-uri.js';

/**
 * The logout fields of a client, by their registered metadata names: RP-Initiated Logout 1.0
 * section 3.1 (`post_logout_redirect_uris`), Back-Channel Logout 1.0 section 2.2 and Front-Channel
 * Logout 1.0 section 2 (the URIs and whether `sid`/`iss` must go with them).
 */
export interface LogoutClientFields {
  postLogoutRedirectUris: string[];
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired: boolean;
  frontchannelLogoutUri?: string;
  frontchannelLogoutSessionRequired: boolean;
}

export const LOGOUT_CLIENT_KEYS = ['post_logout_redirect_uris', 'backchannel_logout_uri', 'backchannel_logout_session_required', 'frontchannel_logout_uri', 'frontchannel_logout_session_required'];
/** Top level: consent given in a session is remembered for its user after the session ends (default false: it ends with it). */
export const LOGOUT_TOP_KEYS = ['keep_consent_after_logout'];

type Obj = Record<string, unknown>;
type Fail = (field: string, message: string) => void;

/** An absolute http(s) URL without a fragment, printable ASCII: where the mock itself sends requests or browsers. */
function logoutUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be an absolute http or https URL (a string)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.hash || value.includes('#')) return 'must not contain a fragment';
  if (/[^\x21-\x7e]/.test(value)) return 'must be printable ASCII without spaces (percent-encode the rest, xn-- for an IDN host)';
  return undefined;
}

export function validateLogoutClient(c: Obj, bad: Fail): LogoutClientFields {
  const fields: LogoutClientFields = { postLogoutRedirectUris: [], backchannelLogoutSessionRequired: false, frontchannelLogoutSessionRequired: false };
  const uris = c.post_logout_redirect_uris;
  if (uris !== undefined) {
    if (!Array.isArray(uris)) bad('post_logout_redirect_uris', 'must be an array of absolute http or https URLs');
    else
      uris.forEach((u, i) => {
        const problem = logoutUriProblem(u);
        if (problem) bad(`post_logout_redirect_uris[${i}]`, problem);
        else fields.postLogoutRedirectUris.push(u as string);
      });
  }
  for (const [key, prop] of [
    ['backchannel_logout_uri', 'backchannelLogoutUri'],
    ['frontchannel_logout_uri', 'frontchannelLogoutUri'],
  ] as const) {
    if (c[key] === undefined) continue;
    const problem = logoutUriProblem(c[key]);
    if (problem) bad(key, problem);
    else fields[prop] = c[key] as string;
  }
  for (const [key, prop] of [
    ['backchannel_logout_session_required', 'backchannelLogoutSessionRequired'],
    ['frontchannel_logout_session_required', 'frontchannelLogoutSessionRequired'],
  ] as const) {
    if (c[key] === undefined) continue;
    if (typeof c[key] !== 'boolean') bad(key, 'must be true or false');
    else fields[prop] = c[key];
  }
  return fields;
}

export function validateLogoutTop(input: Obj, fail: Fail): { keepConsentAfterLogout: boolean } {
  const v = input.keep_consent_after_logout;
  if (v !== undefined && typeof v !== 'boolean') fail('keep_consent_after_logout', 'must be true or false');
  return { keepConsentAfterLogout: v === true };
}

/** RP-Initiated Logout 1.0 section 3: an exact match of a registered URI, any port on loopback (RFC 8252 section 7.3). */
export function matchPostLogoutRedirectUri(client: LogoutClientFields, requested: string): boolean {
  return matchRedirectUri(client.postLogoutRedirectUris, requested);
}
