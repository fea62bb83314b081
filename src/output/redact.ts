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
  return `[redacted ${value.length} char${value.length === 1 ? '' : 's'}]`;
}

/**
 * Whether a field's value is hidden: a secret by its name (`password`, `client_secret`), or by its
 * value, one of `secrets` (a value the user gave that goes out under a name of the server's choosing,
 * such as a login form's `pwd`). The value must be the whole field: a secret's text elsewhere (the
 * word `password` in `type="password"`) is left as it is.
 */
function isSecretField(name: string, value: unknown, secrets: readonly string[]): boolean {
  return typeof value === 'string' && (SECRET_PARAMS.has(name) || (value !== '' && secrets.includes(value)));
}

/** `Bearer abc` -> `Bearer [redacted 3 chars]`; keeps the scheme visible. */
export function redactHeaderValue(name: string, value: string, show = false, secrets: readonly string[] = []): string {
  if (!show && value !== '' && secrets.includes(value)) return redact(value);
  // A DPoP proof (RFC 9449) is shown without its signature: the header and claims are worth reading.
  if (!show && name.toLowerCase() === 'dpop') return value.replace(/^([\w-]+\.[\w-]+)\.[\w-]+$/, (_, signed: string) => `${signed}.[signature redacted]`);
  if (show || !SECRET_HEADERS.has(name.toLowerCase())) return value;
  const m = /^(\w+)\s+(.*)$/.exec(value);
  if (m && name.toLowerCase().endsWith('authorization')) return `${m[1]} ${redact(m[2] ?? '')}`;
  return redact(value);
}

/** Redacts the secret fields of a flat record (a form body, a query, a token response): see isSecretField. */
export function redactParams<T extends Record<string, unknown>>(params: T, show = false, secrets: readonly string[] = []): T {
  if (show) return params;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    out[k] = isSecretField(k, v, secrets) ? redact(v as string) : v;
  }
  return out as T;
}

/** Redacts the secret fields of a URL-encoded form body or query string: see isSecretField. */
export function redactForm(form: string | URLSearchParams, show = false, secrets: readonly string[] = []): string {
  const params = new URLSearchParams(form);
  if (show) return params.toString();
  const redacted = new URLSearchParams();
  for (const [key, value] of params) redacted.append(key, isSecretField(key, value, secrets) ? redact(value) : value);
  return redacted.toString();
}

/** A URL for a trace, its secret query fields redacted: see isSecretField. */
export function redactUrl(url: string, show = false, secrets: readonly string[] = []): string {
  if (show) return url;
  try {
    const u = new URL(url);
    if (u.search) u.search = redactForm(u.searchParams, false, secrets);
    return u.href;
  } catch {
    return url;
  }
}
