import { FlowError } from '../../errors.js';
import { formatOAuthError } from '../../oauth/errors.js';
import { firstPollInterval, slowedPollInterval } from '../../oauth/polling.js';
import type { GrantParams, TokenResponse } from '../../oauth/token-request.js';
import type { HttpClient } from '../http/http.js';
import { requestToken, TokenRequestError, type TokenEndpointConfig } from './token.js';

export interface PollOptions {
  /** Give up after this long (and in any case when the grant expires). */
  timeoutMs: number;
  /** Waits `ms`, or rejects when `signal` aborts; injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Told of every poll that is not yet the tokens: `authorization_pending`, or `slow_down` with the new interval. */
  onPending?: (error: 'authorization_pending' | 'slow_down', intervalSeconds: number) => void;
  now?: () => number;
}

/** What one polled grant says about itself, and how its ends are explained. */
export interface PolledGrant {
  grant: GrantParams;
  /** Seconds, as the server announced them (the floor and the default are the shared rule's). */
  interval: number | undefined;
  expiresIn: number;
  /** The hints of the flow's ends, each one line: the grant expired, the user refused, waiting timed out. */
  expired: { message: string; hint: string };
  deniedHint: string;
  expiredTokenHint: string;
  timedOutHint: string;
}

/**
 * Polls the token endpoint (RFC 8628 sections 3.4 and 3.5, CIBA Core 1.0 sections 10.1 and 11), waiting
 * `interval` seconds before each poll: authorization_pending goes on, slow_down goes on 5 seconds slower
 * (for good), expired_token, access_denied and any other error end the flow (FlowError, exit 1).
 */
export async function pollForTokens(http: HttpClient, config: TokenEndpointConfig, polled: PolledGrant, options: PollOptions): Promise<TokenResponse> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? delay;
  let interval = firstPollInterval(polled.interval);
  const deadline = now() + Math.min(options.timeoutMs, polled.expiresIn * 1000);
  for (;;) {
    if (now() + interval * 1000 > deadline) {
      if (options.timeoutMs >= polled.expiresIn * 1000) throw new FlowError(polled.expired.message, polled.expired.hint);
      throw new FlowError(`timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for the user to finish`, polled.timedOutHint);
    }
    await sleep(interval * 1000, options.signal);
    try {
      return await requestToken(http, config, polled.grant);
    } catch (err) {
      const error = err instanceof TokenRequestError ? err.oauthError?.error : undefined;
      if (error === 'authorization_pending') {
        options.onPending?.(error, interval);
        continue;
      }
      if (error === 'slow_down') {
        interval = slowedPollInterval(interval);
        options.onPending?.(error, interval);
        continue;
      }
      throw explainEnd(err, polled);
    }
  }
}

/** One token request of a polled grant (CIBA's ping mode asks once, after the ping), its ends explained as polling explains them. */
export async function requestPolledGrant(http: HttpClient, config: TokenEndpointConfig, polled: PolledGrant): Promise<TokenResponse> {
  try {
    return await requestToken(http, config, polled.grant);
  } catch (err) {
    throw explainEnd(err, polled);
  }
}

/** access_denied and expired_token are named by their code, as the code flow names them, with the server's words and a hint of what to do. */
function explainEnd(err: unknown, polled: PolledGrant): unknown {
  const oauthError = err instanceof TokenRequestError ? err.oauthError : undefined;
  if (oauthError === undefined) return err;
  const answered = `the authorization server answered ${formatOAuthError(oauthError)}`;
  if (oauthError.error === 'access_denied') return new FlowError(answered, polled.deniedHint);
  if (oauthError.error === 'expired_token') return new FlowError(answered, polled.expiredTokenHint);
  return err;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
