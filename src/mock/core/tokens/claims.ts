import type { MockUser } from '../config/config.js';

/** OpenID Connect Core 5.4: the claims each scope asks for. */
const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: ['name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};
const STANDARD = new Set(Object.values(SCOPE_CLAIMS).flat());

/** The user's claims the granted scopes release; claims outside the standard ones go with `profile`. */
export function userClaims(user: MockUser, scopes: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const scope of scopes) {
    for (const name of SCOPE_CLAIMS[scope] ?? []) if (user.claims[name] !== undefined) out[name] = user.claims[name];
  }
  if (scopes.includes('profile')) for (const [name, value] of Object.entries(user.claims)) if (!STANDARD.has(name)) out[name] = value;
  return out;
}

export const CLAIMS_SUPPORTED = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'sid', 'amr', 'acr', ...STANDARD];
