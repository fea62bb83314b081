import type { CachedLoginSelector } from '../../client/cache/cached-login.js';
import { discardingStream, withIO, type IO } from '../../output/io.js';
import type { TokenCacheKey } from '../../store/token-cache.js';
import { PASSWORD_ENV, USERNAME_ENV } from '../options/headless-options.js';
import { DEFAULT_LOGIN_TIMEOUT_SECONDS, type LoginOptions } from '../login/login.js';

/** How a helper (`token`, `credential git`) logs in when no token can be had otherwise. */
export type LoginWay = 'headless' | 'browser' | 'device';

/**
 * The login a helper can run here: headless when the account is in the environment (OAUTHCTL_USERNAME
 * and OAUTHCTL_PASSWORD, as in CI), the browser when one can start (BROWSER, a display, macOS, Windows),
 * else the device flow (RFC 8628) when someone reads stderr on a terminal; none otherwise, and the
 * helper fails with the hint to log in.
 */
export function loginWay(io: IO): LoginWay | undefined {
  const env = io.env;
  if (env[USERNAME_ENV] && env[PASSWORD_ENV]) return 'headless';
  if (env.BROWSER || env.DISPLAY || env.WAYLAND_DISPLAY || process.platform === 'darwin' || process.platform === 'win32') return 'browser';
  if (io.stderr.isTTY) return 'device';
  return undefined;
}

export interface HelperLoginOptions extends CachedLoginSelector {
  insecure?: boolean | undefined;
  httpTimeout?: number | undefined;
  tokenStore?: string | undefined;
  /** Seconds for the whole login. */
  timeout?: number | undefined;
  quiet?: boolean | undefined;
}

/**
 * The `logIn` of a cached-token context: `login` for the key, its narration on stderr and its
 * token response nowhere (stdout is the helper's answer to kubectl or git). Undefined when no login
 * can run here; false from it when nothing says where to log in (no profile of that name, no server).
 */
export function helperLogin(options: HelperLoginOptions, io: IO): ((key: TokenCacheKey) => Promise<boolean>) | undefined {
  const way = loginWay(io);
  if (way === undefined) return undefined;
  return async (key) => {
    const { loadSelectedProfile } = await import('../../store/config-store.js');
    const profile = await loadSelectedProfile(key.profile !== undefined ? { ...options, profile: key.profile } : {}, io.env).catch(() => null);
    if (profile === null || (profile === undefined && options.issuer === undefined && options.authUrl === undefined && options.tokenEndpoint === undefined)) return false;
    const login: LoginOptions = {
      config: options.config,
      clientSecret: options.clientSecret,
      insecure: options.insecure,
      httpTimeout: options.httpTimeout,
      tokenStore: options.tokenStore,
      timeout: options.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS,
      quiet: options.quiet,
      ...(key.profile !== undefined ? { profile: key.profile } : { issuer: options.issuer, authUrl: options.authUrl, tokenEndpoint: options.tokenEndpoint, clientId: options.clientId }),
      ...(way === 'headless' && { headless: true }),
      ...(way === 'device' && { device: true }),
    };
    io.stderr.write(`oauthctl: no valid token for ${key.profile !== undefined ? `profile ${key.profile}` : (key.clientId ?? '')}: logging in (${way})\n`);
    // The caller holds the login lock already.
    const { loginNow } = await import('../login/login.js');
    const code = await loginNow(login, withIO(io, { stdout: discardingStream() }));
    if (code !== 0) throw new (await import('../../errors.js')).FlowError(`the login failed (exit ${code})`);
    return true;
  };
}
