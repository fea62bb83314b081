import { randomInt } from 'node:crypto';
import { formatUserCode, normalizeUserCode, USER_CODE_ALPHABET, USER_CODE_LENGTH } from '../../../oauth/grant-types.js';
import type { Exchange, MockState } from '../http/http.js';
import { errorPage, sendPage } from '../pages/pages.js';
import { deviceDonePage } from '../pages/device-pages.js';
import type { DeviceCodeRecord, SessionRecord } from '../store/store.js';
import { guessedTooOften } from './user-code-guesses.js';

/** The verification page (RFC 8628 section 3.3), where the user enters the code shown on the device. */
export const VERIFICATION_PATH = '/device';
/** An expired device code is kept this much longer, so that a late poll is told expired_token, not invalid_grant. */
export const EXPIRED_DEVICE_CODE_KEPT_MS = 10 * 60 * 1000;

/** A fresh user code (RFC 8628 section 6.1): 8 letters of the unambiguous alphabet, not in use. */
export function newUserCode(state: MockState): string {
  for (;;) {
    let code = '';
    for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
    if (!state.store.userCodes.get(code)) return code;
  }
}

export type UserCodeLookup = { kind: 'ok'; deviceCode: string; record: DeviceCodeRecord } | { kind: 'unknown' | 'used' | 'expired' };

/** The device authorization a typed user code names; matched without case or dashes. */
export function lookUpUserCode(state: MockState, typed: string): UserCodeLookup {
  const entry = state.store.userCodes.get(normalizeUserCode(typed));
  const record = entry ? state.store.deviceCodes.get(entry.deviceCode) : undefined;
  if (!entry || !record) return { kind: 'unknown' };
  if (record.codeExpiresAt <= state.now()) return { kind: 'expired' };
  if (record.status !== 'pending') return { kind: 'used' };
  // RFC 8628 section 5.1: a code that has seen too many wrong guesses ends, as if expired (the device starts again).
  if (guessedTooOften(state, record.wrongGuessesAtIssue ?? 0)) {
    record.codeExpiresAt = state.now();
    return { kind: 'expired' };
  }
  return { kind: 'ok', deviceCode: entry.deviceCode, record };
}

const LOOKUP_MESSAGES = {
  unknown: 'There is no sign-in waiting for this code. Check the code shown on your device and type it again.',
  used: 'This code has already been used. Start again on your device to get a new code.',
  expired: 'This code has expired. Start again on your device to get a new code.',
} as const;

/** The page for a code that cannot be used: wrong, used or expired. */
export function sendUserCodeProblem(ex: Exchange, kind: keyof typeof LOOKUP_MESSAGES): void {
  ex.log.error = kind === 'expired' ? 'expired_token' : 'invalid_request';
  ex.log.errorDescription = `user code ${kind}`;
  ex.log.outcome = 'error page';
  sendPage(ex.res, 400, 'Code not accepted', errorPage('This code cannot be used', LOOKUP_MESSAGES[kind], `Go back to ${VERIFICATION_PATH} to enter another code.`));
}

/** The user signed in and allowed access: the device's next poll gets the tokens (RFC 8628 section 3.5). */
export function approveDevice(ex: Exchange, deviceCode: string, session: SessionRecord): void {
  const record = pendingRecord(ex, deviceCode);
  if (!record) return;
  record.status = 'approved';
  record.username = session.username;
  record.authTime = session.authTime ?? ex.state.now();
  record.session = session;
  ex.log.clientId = record.clientId;
  ex.log.outcome = 'device approved';
  sendPage(ex.res, 200, 'Device connected', deviceDonePage(true, formatUserCode(record.userCode)));
}

/** The user refused: the device's next poll gets access_denied. */
export function denyDevice(ex: Exchange, deviceCode: string): void {
  const record = pendingRecord(ex, deviceCode);
  if (!record) return;
  record.status = 'denied';
  ex.log.clientId = record.clientId;
  ex.log.outcome = 'device denied';
  ex.log.error = 'access_denied';
  sendPage(ex.res, 200, 'Access denied', deviceDonePage(false, formatUserCode(record.userCode)));
}

/** The record while it can still be decided: a second decision (another tab, a replayed form) is refused. */
function pendingRecord(ex: Exchange, deviceCode: string): DeviceCodeRecord | undefined {
  const record = ex.state.store.deviceCodes.get(deviceCode);
  if (!record || record.codeExpiresAt <= ex.state.now()) return void sendUserCodeProblem(ex, 'expired');
  if (record.status !== 'pending') return void sendUserCodeProblem(ex, 'used');
  return record;
}
