import type { MockState } from '../core/http/http.js';
import type { SessionRecord } from '../core/store/store.js';
import { sendPing } from './notify.js';
import { cibaRequests, type CibaRequestRecord } from './store.js';

export type CibaDecision = 'approve' | 'deny';

/** Why a decision could not be taken: the request is unknown (or expired), or already decided. */
export type CibaDecisionProblem = 'unknown' | 'decided';

/** A request that may still be decided, by its auth_req_id. */
export function pendingCibaRequest(state: MockState, authReqId: string): CibaRequestRecord | CibaDecisionProblem {
  const record = cibaRequests(state.store, () => state.now()).get(authReqId);
  if (!record || record.requestExpiresAt <= state.now()) return 'unknown';
  if (record.status !== 'pending') return 'decided';
  return record;
}

/**
 * CIBA Core 1.0 section 8: the user approved (the next token request gets the tokens) or refused
 * (access_denied). In ping mode the client is told at once (section 10.2), on its own: nothing waits for it.
 */
export function decideCibaRequest(state: MockState, authReqId: string, record: CibaRequestRecord, decision: CibaDecision, session?: SessionRecord): void {
  record.status = decision === 'approve' ? 'approved' : 'denied';
  if (decision === 'approve') {
    record.authTime = session?.authTime ?? state.now();
    if (session !== undefined) {
      record.session = session;
      session.clients?.add(record.clientId);
    }
  }
  const client = state.config.clients.get(record.clientId);
  if (record.mode === 'ping' && client !== undefined && record.notificationToken !== undefined) void sendPing(state, client, authReqId, record.notificationToken);
}
