import type { MockState } from './http.js';

/**
 * RFC 8628 section 5.1: a user code is short enough to be typed, so it is short enough to be guessed;
 * the server limits the guesses. The mock allows this many wrong codes a minute (by its clock) across
 * the server, then answers the verification page 429 with Retry-After until the minute is over. The
 * window is server-wide on purpose: on loopback every client has the same address, and a cookie is
 * one an attacker would simply not send.
 */
export const WRONG_USER_CODES_PER_MINUTE = 10;
const WINDOW_MS = 60_000;

interface GuessWindow {
  startedAt: number;
  wrong: number;
}

const windows = new WeakMap<MockState, GuessWindow>();

function currentWindow(state: MockState): GuessWindow {
  const now = state.now();
  let window = windows.get(state);
  if (!window || now - window.startedAt >= WINDOW_MS || now < window.startedAt) {
    window = { startedAt: now, wrong: 0 };
    windows.set(state, window);
  }
  return window;
}

/** Seconds until a code may be typed again, or undefined while guesses are left. */
export function userCodeGuessesBlockedFor(state: MockState): number | undefined {
  const window = currentWindow(state);
  if (window.wrong < WRONG_USER_CODES_PER_MINUTE) return undefined;
  return Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - state.now()) / 1000));
}

/** A typed code that named no device authorization. */
export function countWrongUserCode(state: MockState): void {
  currentWindow(state).wrong++;
}
