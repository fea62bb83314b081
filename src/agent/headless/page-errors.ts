import { FlowError } from '../../errors.js';
import { explainOAuthError } from '../../oauth/errors.js';
import { escapeLogValue } from '../../output/escape.js';
import type { HtmlPage } from './page.js';

/** The longest quote of a page in a message: enough for an error and its description. */
const QUOTE_LIMIT = 240;

/** Text as one line of at most `limit` characters, for a report or an error message. */
export function shortLine(text: string, limit = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit)}...` : line;
}

/** What a page says, in a few words: its error text, else its visible words, else its title. */
export function pageSummary(page: HtmlPage | undefined, body: string): string {
  if (!page) return shortLine(body, QUOTE_LIMIT);
  return shortLine(page.alerts[0] || page.text || page.title, QUOTE_LIMIT);
}

/** Page text in quotes, safe on a terminal and in a log line. */
export function quote(text: string): string {
  return `"${escapeLogValue(text)}"`;
}

/** A URL without its query: the parameters of an authorization request are the trace's to show. */
function withoutQuery(url: string): string {
  return url.split(/[?#]/)[0] ?? url;
}

/** The form came back after the password was sent: the page's own error text says why, when it has one. */
export function loginFailed(at: string, page: HtmlPage): FlowError {
  const said = page.alerts.find((a) => a.length > 0);
  const check = 'check the username and password (--username and --password, or OAUTHCTL_USERNAME and OAUTHCTL_PASSWORD)';
  if (said) return new FlowError(`login failed at ${withoutQuery(at)}: the server said ${quote(shortLine(said, QUOTE_LIMIT))}`, check);
  return new FlowError(`login failed at ${withoutQuery(at)}: the server showed the login form again without saying why`, `${check}; run with --verbose to see the pages`);
}

/**
 * Error codes that servers put on their error pages besides RFC 6749's: oidc-provider's
 * `invalid_redirect_uri` (its name, from RFC 7591 section 3.2.2) and Google's and GitHub's
 * `redirect_uri_mismatch`.
 */
const REDIRECT_URI_CODES = new Set(['invalid_redirect_uri', 'redirect_uri_mismatch']);
/**
 * The words servers use when the redirect URI is not one of the client's (oidc-provider, Keycloak's
 * "Invalid parameter: redirect_uri", Auth0's "Callback URL mismatch", Django OAuth Toolkit's
 * "Mismatching redirect URI", this project's mock).
 */
const REDIRECT_URI_WORDS =
  /\b(redirect[_ ]?ur[il]s?|callback url)\b.{0,200}?\b(did not match|does not match|doesn't match|mismatch|not registered|not allowed|is invalid|not valid)|\b(mismatching|unregistered|invalid|unknown) redirect[_ ]?ur[il]|invalid parameter:? redirect[_ ]?uri/i;
/** The words servers use when they do not know the client (Keycloak's "Client not found", this project's mock). */
const UNKNOWN_CLIENT_WORDS = /\b(client not found|unknown client|client_id\b.{0,120}?\b(is not a registered client|not found|is unknown|is invalid))/i;

export interface PageError {
  /** The OAuth error code the page names, if it names one. */
  error?: string;
  /** What to check, when the page says what is wrong. */
  check?: 'redirect-uri' | 'client';
}

/** Reads an OAuth error out of an error page's words: a code it names, or a sentence about the redirect URI. */
export function oauthErrorOnPage(text: string): PageError {
  const codes = (text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? []).filter((c) => REDIRECT_URI_CODES.has(c) || explainOAuthError(c) !== undefined);
  const error = codes.find((c) => REDIRECT_URI_CODES.has(c)) ?? codes[0];
  const found: PageError = error ? { error } : {};
  if ((error && REDIRECT_URI_CODES.has(error)) || REDIRECT_URI_WORDS.test(text)) found.check = 'redirect-uri';
  else if (error === 'invalid_client' || error === 'unauthorized_client' || UNKNOWN_CLIENT_WORDS.test(text)) found.check = 'client';
  return found;
}

export interface StoppedAt {
  url: string;
  status: number;
  text: string;
}

/** The failure of a login that stopped on a page with nothing to do: the page quoted, its OAuth error named, what to check. */
export function stoppedOnPage(page: StoppedAt, request: { redirectUri: string; clientId?: string | undefined }): FlowError {
  if (sameOrigin(page.url, request.redirectUri)) {
    // The redirect listener's own answer (a path it does not serve): oauthctl's, not the server's.
    return new FlowError(
      `headless login stopped at ${withoutQuery(page.url)}: oauthctl's redirect listener answered HTTP ${page.status}, as it does for any path but the redirect URI's`,
      `the server sent the user agent to ${withoutQuery(page.url)}, not to the redirect URI ${request.redirectUri}: check the redirect URIs registered for the client, or give --redirect-uri with the one the server uses`,
    );
  }
  const found = oauthErrorOnPage(page.text);
  const said = page.text ? ` ${quote(page.text)}` : '';
  const named = found.error ? ` with ${found.error}:${said}` : said ? ` with${said}` : '';
  const message = `headless login stopped at ${withoutQuery(page.url)}: the server answered HTTP ${page.status}${named}${found.error || page.status >= 400 ? '' : ' and no form to go on with'}`;
  if (found.check === 'redirect-uri') {
    return new FlowError(message, `check that ${request.redirectUri} is one of the client's registered redirect URIs, exactly (scheme, host, port and path), or give --redirect-uri with one that is`);
  }
  if (found.check === 'client') {
    const id = request.clientId === undefined ? '' : ` ${quote(request.clientId)}`;
    return new FlowError(message, `check --client-id${id}: the server does not know that client, or not for this flow; and check --issuer: is it the server the client is registered at?`);
  }
  const meaning = found.error ? explainOAuthError(found.error) : undefined;
  return new FlowError(message, meaning ? `${found.error} means ${meaning}; run with --verbose to see every step` : 'run with --verbose to see every step');
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
