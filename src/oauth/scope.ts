/**
 * RFC 6749 section 3.3: scope is a list of space-delimited, case-sensitive strings.
 * Users (and the seed interface) also write a plus sign as separator; both are accepted on input,
 * and a scope is always sent space-separated.
 */
export function parseScope(input: string | readonly string[] | undefined | null): string[] {
  if (input == null) return [];
  const parts = (Array.isArray(input) ? input : [input]).flatMap((s: string) => s.split(/[ +]+/));
  const seen = new Set<string>();
  for (const p of parts) if (p) seen.add(p);
  return [...seen];
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(' ');
}

/** scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) (RFC 6749 section 3.3) */
export function isValidScopeToken(token: string): boolean {
  return /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(token);
}

/**
 * The scopes asked for that the token response did not grant. RFC 6749 section 5.1: the response's
 * `scope` may be left out when it is the scope requested, so without one nothing is missing.
 */
export function scopesNotGranted(requested: readonly string[], grantedScope: unknown): string[] {
  if (typeof grantedScope !== 'string') return [];
  const granted = new Set(parseScope(grantedScope));
  return requested.filter((s) => !granted.has(s));
}
