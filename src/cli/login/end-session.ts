import { FlowError, UsageError } from '../../errors.js';
import type { EndSessionResult } from '../../client/flows/end-session.js';
import type { HttpClient } from '../../client/http/http.js';
import type { UserAgent } from '../../client/flows/user-agent.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import type { CachedTokens } from '../../store/token-cache.js';

/** The login's default redirect URI (CONTRACT.md), on a free port: where the server sends the browser back. */
export const DEFAULT_POST_LOGOUT_REDIRECT_URI = 'http://127.0.0.1/callback';
export const DEFAULT_END_SESSION_TIMEOUT_SECONDS = 120;

export interface EndSessionOptions {
  postLogoutRedirectUri?: string;
  /** The built-in user agent instead of the browser (the server needs no sign-in to sign out). */
  headless?: boolean;
  browser?: boolean;
  timeout?: number;
}

/**
 * `logout --end-session`: RP-initiated logout for a cached login. The end_session_endpoint comes from
 * the metadata of the login's issuer (or its token endpoint's base); a server without one is an error,
 * and the tokens stay cached.
 */
export async function endSessionForLogin(entry: CachedTokens, options: EndSessionOptions, http: HttpClient, renderer: Renderer, io: IO): Promise<EndSessionResult> {
  const issuer = entry.issuer ?? entry.token_endpoint.replace(/\/[^/]*$/, '');
  const { discoverMetadata } = await import('../../client/flows/endpoints.js');
  const { metadata } = await discoverMetadata(http, issuer).catch((err: unknown) => {
    throw new FlowError(
      `cannot read the metadata of ${issuer} to find its end_session_endpoint: ${err instanceof Error ? err.message : String(err)}`,
      'the tokens are still cached; try again, or log out without --end-session',
    );
  });
  const endpoint = metadata.end_session_endpoint;
  if (typeof endpoint !== 'string')
    throw new FlowError(`${issuer} announces no end_session_endpoint (RP-Initiated Logout 1.0)`, 'the tokens are still cached; log out without --end-session to only revoke and forget them');
  if (entry.id_token === undefined) renderer.warn('the cached login has no ID token: the server may ask to confirm the sign-out');
  const { endSessionAtServer } = await import('../../client/flows/end-session.js');
  return endSessionAtServer({
    endSessionEndpoint: endpoint,
    clientId: entry.client_id,
    idToken: entry.id_token,
    postLogoutRedirectUri: options.postLogoutRedirectUri ?? DEFAULT_POST_LOGOUT_REDIRECT_URI,
    userAgent: await userAgentFor(options),
    renderer,
    io,
    timeoutMs: (options.timeout ?? DEFAULT_END_SESSION_TIMEOUT_SECONDS) * 1000,
  });
}

async function userAgentFor(options: EndSessionOptions): Promise<UserAgent> {
  if (options.headless) {
    const { createHeadlessUserAgent } = await import('../../agent/headless/agent.js');
    // No account: a sign-out tied to the session by its ID token shows no login page.
    return createHeadlessUserAgent({ username: '', password: '' });
  }
  if (options.browser === false) return (await import('../../agent/print-url.js')).printUrlUserAgent;
  return (await import('../../agent/browser.js')).systemBrowserUserAgent;
}

/** The end-session options make sense only with --end-session, and not with --all or --no-revoke alone. */
export function checkEndSessionOptions(options: EndSessionOptions & { endSession?: boolean; all?: boolean }): void {
  const stray = options.postLogoutRedirectUri !== undefined || options.headless === true;
  if (!options.endSession && stray) throw new UsageError('--post-logout-redirect-uri and --headless are for --end-session', 'add --end-session');
  if (options.endSession && options.all) throw new UsageError('--end-session ends one login at a time', 'give --profile or --client-id instead of --all');
}
