import { q } from '../http/http.js';
import type { ClaimsRequest } from '../store/store.js';
import { isJsonObject } from '../../../oauth/json.js';

/** What the mock's sign-in says about itself: a password (RFC 8176 `pwd`) at level 1. */
export const AMR_PASSWORD = ['pwd'];
export const ACR_PASSWORD = '1';
export const ACR_VALUES_SUPPORTED = [ACR_PASSWORD];

/** The OpenID Connect parameters of an authorization request, parsed (OpenID Connect Core 3.1.2.1 and 5.5). */
export interface OidcParams {
  maxAge?: number;
  loginHint?: string;
  acrValues?: string[];
  claims?: ClaimsRequest;
}

/**
 * max_age (whole seconds), login_hint, acr_values (space separated), claims (a JSON object whose
 * `id_token` and `userinfo` members name claims, each null or an object: essential, value, values);
 * ui_locales may be sent and is ignored (section 3.1.2.1 allows it). A string is the problem.
 */
export function parseOidcParams(values: Map<string, string>): OidcParams | string {
  // The plain code flow sends none of them: no object made for it.
  if (!values.has('max_age') && !values.has('login_hint') && !values.has('acr_values') && !values.has('claims')) return NONE;
  const out: OidcParams = {};
  const maxAge = values.get('max_age');
  if (maxAge !== undefined) {
    if (!/^\d{1,10}$/.test(maxAge)) return `max_age ${q(maxAge)} must be a whole number of seconds`;
    out.maxAge = Number(maxAge);
  }
  const loginHint = values.get('login_hint');
  if (loginHint !== undefined) out.loginHint = loginHint;
  const acrValues = values.get('acr_values');
  if (acrValues !== undefined) out.acrValues = acrValues.split(' ').filter(Boolean);
  const claims = values.get('claims');
  if (claims !== undefined) {
    const parsed = parseClaimsRequest(claims);
    if (typeof parsed === 'string') return parsed;
    out.claims = parsed;
  }
  return out;
}

const NONE: OidcParams = Object.freeze({});

/** OpenID Connect Core 5.5: `{"id_token": {...}, "userinfo": {...}}`, each claim null or a request object. */
function parseClaimsRequest(text: string): ClaimsRequest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'claims must be a JSON object (OpenID Connect Core 5.5)';
  }
  if (!isJsonObject(value)) return 'claims must be a JSON object (OpenID Connect Core 5.5)';
  const out: ClaimsRequest = { idToken: [], userinfo: [] };
  for (const [member, prop] of [
    ['id_token', 'idToken'],
    ['userinfo', 'userinfo'],
  ] as const) {
    const requested = value[member];
    if (requested === undefined) continue;
    if (!isJsonObject(requested)) return `claims.${member} must be an object of claim names (OpenID Connect Core 5.5)`;
    for (const [name, spec] of Object.entries(requested)) {
      if (spec !== null && !isJsonObject(spec)) return `claims.${member}.${name} must be null or an object (essential, value, values)`;
      out[prop].push(name);
    }
  }
  return out;
}
