export type TokenTypeHint = 'access_token' | 'refresh_token';

/** A token revocation request's parameters (RFC 7009 section 2.1); the client authenticates as at the token endpoint. */
export function revocationParams(token: string, hint?: string): Record<string, string | undefined> {
  return { token, token_type_hint: hint };
}
