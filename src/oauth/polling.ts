/**
 * The polling rule of the grants whose client asks the token endpoint again and again until the user
 * has decided: the device grant (RFC 8628 sections 3.2 and 3.5) and CIBA's poll mode (CIBA Core 1.0
 * sections 7.3 and 11), which takes the device grant's rule as it is. One rule for the client (how long
 * it waits) and the mock (when it answers slow_down).
 */

/** Seconds between polls when the server names none (RFC 8628 section 3.2, CIBA Core section 7.3). */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/** A server's interval of 0 (or a fraction) would poll in a tight loop: the client waits at least this long. */
export const MIN_POLL_INTERVAL_SECONDS = 1;
/** RFC 8628 section 3.5, CIBA Core section 11: slow_down adds 5 seconds to the interval, for this and every later poll. */
export const SLOW_DOWN_SECONDS = 5;

/** The client's first interval: the server's, never below the floor; 5 s when it names none. */
export function firstPollInterval(announced: number | undefined): number {
  return Math.max(MIN_POLL_INTERVAL_SECONDS, announced ?? DEFAULT_POLL_INTERVAL_SECONDS);
}

/** The client's interval after a slow_down. */
export function slowedPollInterval(interval: number): number {
  return interval + SLOW_DOWN_SECONDS;
}

/** What the server remembers of one polled grant: the interval it asks for and the last poll (ms). */
export interface PollPace {
  interval: number;
  lastPolledAt?: number;
}

/**
 * The server's side: records a poll at `now` (ms) and says whether it came sooner than the interval
 * after the previous one; if so the interval grows by 5 s, for good (the slow_down answer).
 */
export function pollTooSoon(pace: PollPace, now: number): boolean {
  const last = pace.lastPolledAt;
  pace.lastPolledAt = now;
  if (last === undefined || now - last >= pace.interval * 1000) return false;
  pace.interval = slowedPollInterval(pace.interval);
  return true;
}
