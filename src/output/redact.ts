/**
 * Secrets never reach logs or traces unless --show-secrets is given (the contract). A redacted value
 * keeps its length so that a user can still tell an empty value from a wrong one.
 */
export const SECRET_PARAMS: ReadonlySet<string> = new Set([
  'client_secret',
  'code_verifier',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'password',
  'client_assertion',
  'registration_access_token',
]);

export const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

export function redact(value: string, show = false): string {
  if (show) return value;
  return `[redacted ${value.length} chars]`;
}

/** `Bearer abc` -> `Bearer [redacted 3 chars]`; keeps the scheme visible. */
export function redactHeaderValue(name: string, value: string, show = false): string {
  // A DPoP proof (RFC 9449) is shown without its signature: the header and claims are worth reading.
  if (!show && name.toLowerCase() === 'dpop') return value.replace(/^([\w-]+\.[\w-]+)\.[\w-]+$/, (_, signed: string) => `${signed}.[signature redacted]`);
  if (show || !SECRET_HEADERS.has(name.toLowerCase())) return value;
  const m = /^(\w+)\s+(.*)$/.exec(value);
  if (m && name.toLowerCase().endsWith('authorization')) return `${m[1]} ${redact(m[2] ?? '')}`;
  return redact(value);
}

/** Redacts secret-named fields of a flat record (a form body, a query, a token response). */
export function redactParams<T extends Record<string, unknown>>(params: T, show = false): T {
  if (show) return params;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    out[k] = SECRET_PARAMS.has(k) && typeof v === 'string' ? redact(v) : v;
  }
  return out as T;
}

/** Redacts the secret parameters of a URL-encoded form body or query string. */
export function redactForm(form: string | URLSearchParams, show = false): string {
  const params = new URLSearchParams(form);
  if (show) return params.toString();
  for (const key of [...new Set(params.keys())]) {
    if (SECRET_PARAMS.has(key)) params.set(key, redact(params.get(key) ?? ''));
  }
  return params.toString();
}
