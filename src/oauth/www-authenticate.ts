// RFC 9110 section 5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;
const isTchar = (c: number): boolean => c < 128 && TCHAR[c] === 1;

/**
 * Parses a WWW-Authenticate header (RFC 9110 section 11.6.1) into challenges, so that a protected
 * resource's RFC 6750 section 3 error (`Bearer error="invalid_token", error_description="..."`) can be shown.
 */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

export function parseWwwAuthenticate(header: string): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  let i = 0;
  const n = header.length;
  const skipSpace = () => {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  const readToken = () => {
    const start = i;
    while (i < n && isTchar(header.charCodeAt(i))) i++;
    return header.slice(start, i);
  };
  const readQuoted = () => {
    let out = '';
    i++; // opening quote
    while (i < n && header[i] !== '"') {
      if (header[i] === '\\' && i + 1 < n) i++;
      out += header[i];
      i++;
    }
    i++; // closing quote
    return out;
  };

  let current: AuthChallenge | undefined;
  while (i < n) {
    skipSpace();
    if (header[i] === ',') {
      i++;
      continue;
    }
    const start = i;
    const token = readToken();
    if (!token) {
      i++;
      continue;
    }
    skipSpace();
    if (header[i] === '=' && current) {
      // auth-param = token BWS "=" BWS ( token / quoted-string )
      i++;
      skipSpace();
      const value = header[i] === '"' ? readQuoted() : readToken();
      current.params[token.toLowerCase()] = value;
      continue;
    }
    // A new challenge starts with its scheme; token68 forms are kept as a param named "token68".
    current = { scheme: token, params: {} };
    challenges.push(current);
    skipSpace();
    const rest = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(header.slice(i));
    if (rest && !header.slice(i).match(/^[A-Za-z0-9\-._~+/]+\s*=[^=]/)) {
      current.params.token68 = rest[0];
      i += rest[0].length;
    }
    if (i === start) i++;
  }
  return challenges;
}

/** The Bearer challenge's RFC 6750 error fields (or those of another scheme's, e.g. DPoP, RFC 9449 section 7.1), if the header has one. */
export function bearerError(header: string | undefined | null, scheme = 'Bearer'): { error?: string; error_description?: string; scope?: string; realm?: string } | undefined {
  if (!header) return undefined;
  const bearer = parseWwwAuthenticate(header).find((c) => c.scheme.toLowerCase() === scheme.toLowerCase());
  if (!bearer) return undefined;
  const { error, error_description, scope, realm } = bearer.params;
  return {
    ...(error !== undefined && { error }),
    ...(error_description !== undefined && { error_description }),
    ...(scope !== undefined && { scope }),
    ...(realm !== undefined && { realm }),
  };
}

/**
 * An auth-param value as a quoted-string (RFC 9110 section 5.6.4), for a challenge the mock sends and
 * parseWwwAuthenticate reads: `"` and `\` escaped, anything outside printable ASCII replaced by `?`.
 */
export function quotedString(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&').replace(/[^\x20-\x7e]/g, '?')}"`;
}
