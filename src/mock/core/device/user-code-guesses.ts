import type { MockState } from '../http/http.js';

/**
 * RFC 8628 section 5.1: a user code is short enough to be typed, so it is short enough to be guessed;
 * the server limits the guesses. Two limits, neither of which lets one guesser lock everyone out:
 *
 * - per guesser: a browser session (the verification page's cookie) may type this many wrong codes a
 *   minute (by the mock's clock), then its own attempts, right or wrong, answer 429 with Retry-After
 *   until its minute is over. Other sessions, and the right code followed from verification_uri_complete,
 *   are not held up by it.
 * - per device code: a pending device authorization may see this many wrong guesses, by anyone, over its
 *   life; past that its user code stops working (the device gets expired_token and starts again). An
 *   attacker who drops the cookie to escape the first limit still has at most this many tries at any one
 *   code: 100 in 20^8 user codes.
 */
export const WRONG_USER_CODES_PER_MINUTE = 10;
export const WRONG_USER_CODES_PER_DEVICE_CODE = 100;
const WINDOW_MS = 60_000;
/** Guessers remembered at once; the oldest window is forgotten first. */
const MAX_GUESSERS = 10_000;

interface GuessWindow {
  startedAt: number;
  wrong: number;
}

interface Guesses {
  /** Wrong codes typed since the server started: a device code remembers the count at its issue. */
  total: number;
  windows: Map<string, GuessWindow>;
}

const guesses = new WeakMap<MockState, Guesses>();

function guessesOf(state: MockState): Guesses {
  let g = guesses.get(state);
  if (!g) guesses.set(state, (g = { total: 0, windows: new Map() }));
  return g;
}

function currentWindow(state: MockState, guesser: string): GuessWindow {
  const { windows } = guessesOf(state);
  const now = state.now();
  let window = windows.get(guesser);
  if (!window || now - window.startedAt >= WINDOW_MS || now < window.startedAt) {
    windows.delete(guesser);
    if (windows.size >= MAX_GUESSERS) windows.delete(windows.keys().next().value as string);
    window = { startedAt: now, wrong: 0 };
    windows.set(guesser, window);
  }
  return window;
}

/** Seconds until this guesser (a session id; undefined without one) may type a code again, or undefined while guesses are left. */
export function userCodeGuessesBlockedFor(state: MockState, guesser: string | undefined): number | undefined {
  if (guesser === undefined) return undefined;
  const window = guessesOf(state).windows.get(guesser);
  if (!window || window.wrong < WRONG_USER_CODES_PER_MINUTE) return undefined;
  const left = window.startedAt + WINDOW_MS - state.now();
  return left > 0 ? Math.ceil(left / 1000) : undefined;
}

/** A typed code that named no device authorization. */
export function countWrongUserCode(state: MockState, guesser: string | undefined): void {
  guessesOf(state).total++;
  if (guesser !== undefined) currentWindow(state, guesser).wrong++;
}

/** The count a new device code is issued at. */
export function wrongUserCodesSoFar(state: MockState): number {
  return guessesOf(state).total;
}

/** Whether a device code issued when `issuedAtCount` wrong codes had been typed has seen its share of guesses. */
export function guessedTooOften(state: MockState, issuedAtCount: number): boolean {
  return guessesOf(state).total - issuedAtCount > WRONG_USER_CODES_PER_DEVICE_CODE;
}
