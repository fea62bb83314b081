import type { CodeChallengeMethod, PkcePair } from '../oauth/pkce.js';
import type { OAuthErrorFields } from '../oauth/errors.js';

/** An authorization request, the client's own by default; a probe changes what it tests. */
export interface AuthorizeParams {
  clientId?: string;
  redirectUri?: string;
  responseType?: string;
  state?: string;
  scopes?: readonly string[];
  /** A PKCE pair to send; null sends no code_challenge at all; undefined: the client's default. */
  pkce?: PkcePair | { codeChallenge: string; codeChallengeMethod: CodeChallengeMethod } | null;
  extraParams?: Record<string, string>;
  /** The whole authorization URL, built by the probe (repeated parameters and the like); the fields above are then ignored. */
  rawUrl?: string;
}

export type AuthorizeOutcome =
  /** The server sent the user agent to the redirect URI (not followed). */
  | { kind: 'redirect'; url: string; params: Record<string, string>; via: 'query' | 'fragment' | 'form_post' }
  /**
   * The server showed a page and stopped there (an error page, for an invalid request); `stuck` says why
   * the user agent could not go on when the page was no plain error page (its message filled in by a script).
   */
  | { kind: 'page'; url: string; status: number; text: string; stuck?: string }
  /** The server sent the user agent to another site, which the audit does not visit. */
  | { kind: 'elsewhere'; url: string }
  /** The PAR endpoint refused the pushed request (RFC 9126 section 2.3): nothing reached the front channel. */
  | { kind: 'push-refused'; text: string; clientAuthentication?: boolean };

/** A request pushed to the PAR endpoint (RFC 9126 section 2.2), and the front-channel URL that carries its request_uri. */
export interface PushedRequest {
  kind: 'pushed';
  url: string;
  requestUri: string;
  expiresIn: number;
}

export interface IssuedCode {
  code: string;
  redirectUri: string;
  pkce?: PkcePair | undefined;
  params: Record<string, string>;
}

/** A token endpoint exchange as seen on the wire, kept for the probes that look at all of them. */
export interface TokenExchange {
  grantType: string;
  /** POST, except for the probe that tries GET (whose 405 is no RFC 6749 section 5.2 error response). */
  method?: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  json?: unknown;
  error?: OAuthErrorFields;
}

/** A token request that was refused: the status and the RFC 6749 error, for a probe's detail. */
export function describeExchange(x: TokenExchange): string {
  if (x.error) return `HTTP ${x.status} ${x.error.error}`;
  if (x.status === 200 && x.json && typeof x.json === 'object' && 'access_token' in x.json) return `HTTP ${x.status} with an access_token`;
  const body = x.body.replace(/\s+/g, ' ').trim();
  return `HTTP ${x.status}${body ? ` ${JSON.stringify(body.length > 60 ? `${body.slice(0, 60)}...` : body)}` : ''}`;
}

export function issuedTokens(x: TokenExchange): boolean {
  return x.status >= 200 && x.status < 300 && !!x.json && typeof x.json === 'object' && typeof (x.json as Record<string, unknown>).access_token === 'string';
}
