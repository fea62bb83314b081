import { FlowError } from '../errors.js';
import { LockTimeoutError, withFileLock } from './atomic-file.js';
import { cacheFilePath, describeKey, type TokenCache, type TokenCacheKey } from './token-cache.js';

/**
 * One login for many callers: kubectl and git call a helper many times at once, and each would open
 * its own browser tab. The run that finds a login needed takes `<entry>.login.lock` (created with
 * O_EXCL, holding its pid); the others wait for it, saying on stderr what they wait for, then read
 * the cache again and use what it got. A holder that has died is noticed by its pid and never blocks
 * past its death; a live one is waited for only as long as the waiter's own timeout.
 */
export interface LoginLockOptions {
  timeoutMs: number;
  /** Where a waiter says what it waits for (stderr). */
  tell: (line: string) => void;
}

export async function withLoginLock<T>(cache: TokenCache, key: TokenCacheKey, fn: () => Promise<T>, options: LoginLockOptions): Promise<T> {
  const entryPath = cacheFilePath(cache, key);
  try {
    return await withFileLock(`${entryPath}.login`, fn, {
      timeoutMs: options.timeoutMs,
      onWait: (pid) => options.tell(`waiting for another oauthctl${pid !== undefined ? ` (pid ${pid})` : ''} that is logging in for ${describeKey(key)}`),
    });
  } catch (err) {
    if (!(err instanceof LockTimeoutError)) throw err;
    throw new FlowError(
      `gave up after ${Math.round(options.timeoutMs / 1000)} s waiting for another oauthctl logging in for ${describeKey(key)}`,
      `finish that login, or remove ${err.lockPath} if no oauthctl is running`,
    );
  }
}
