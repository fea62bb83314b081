import { randomBytes } from 'node:crypto';
import type { MockState } from '../core/http/http.js';

/** An MCP session (Streamable HTTP, session management): the protocol version it negotiated and whose it is. */
export interface McpSession {
  protocolVersion: string;
  /** The session is bound to who started it (MCP 2025-11-25, security best practices: session hijacking). */
  owner: string;
}

/** Sessions kept at once; past it, the oldest ends. */
const MAX_SESSIONS = 1000;
/** Sessions one owner keeps at once; past it, that owner's oldest ends (a flood by one caller ends no one else's). */
export const MAX_SESSIONS_PER_OWNER = 20;

const perIssuer = new WeakMap<object, Map<string, McpSession>>();
function sessionsOf(state: MockState): Map<string, McpSession> {
  let s = perIssuer.get(state.config);
  if (!s) perIssuer.set(state.config, (s = new Map()));
  return s;
}

export const ownerOf = (claims: { sub: string; client_id: string }): string => JSON.stringify([claims.sub, claims.client_id]);

/** A new session: its id is visible ASCII and unguessable (128 random bits), as the transport asks. */
export function startSession(state: MockState, session: McpSession): string {
  const sessions = sessionsOf(state);
  const own = [...sessions].filter(([, s]) => s.owner === session.owner);
  if (own.length >= MAX_SESSIONS_PER_OWNER) sessions.delete(own[0]![0]);
  else if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  const id = randomBytes(16).toString('base64url');
  sessions.set(id, session);
  return id;
}

/** The session of this id when it is the caller's; another's is as unknown as an ended one. */
export function findSession(state: MockState, id: string, owner: string): McpSession | undefined {
  const session = sessionsOf(state).get(id);
  return session?.owner === owner ? session : undefined;
}

export function endSession(state: MockState, id: string): void {
  sessionsOf(state).delete(id);
}
