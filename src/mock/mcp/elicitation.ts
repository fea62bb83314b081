import { randomBytes } from 'node:crypto';
import type { Exchange, MockState } from '../core/http/http.js';
import { result, sseEvent, type JsonRpcId } from './jsonrpc.js';
import { GREET_ELICITATION, greeting } from './tools.js';

/** An elicitation waiting for the client's answer: whose it is, and what to do with the answer. */
interface Waiting {
  owner: string;
  answered(response: unknown): void;
}

const perConfig = new WeakMap<object, Map<string, Waiting>>();
const waitingOf = (state: MockState): Map<string, Waiting> => {
  let m = perConfig.get(state.config);
  if (!m) perConfig.set(state.config, (m = new Map()));
  return m;
};
/** How long the stream waits for the client's answer. */
const ANSWER_WITHIN_MS = 60_000;
/** Elicitations waiting at once; past it, a new one is not asked. */
const MAX_WAITING = 100;

/**
 * `greet` in the earlier revisions (2025-11-25 basic/client/elicitation, basic/transports): the answer
 * is an event stream; its first event is the server's elicitation/create request; the client POSTs its
 * response, and the stream then carries the tool's result and ends.
 */
export function greetLegacy(ex: Exchange, id: JsonRpcId, owner: string): void {
  const waiting = waitingOf(ex.state);
  const res = ex.res;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
  ex.log.outcome = 'elicitation asked';
  const finish = (message: unknown) => {
    waiting.delete(askId);
    clearTimeout(timer);
    if (!res.writableEnded) res.end(sseEvent(message));
  };
  const askId = `elicit-${randomBytes(12).toString('base64url')}`;
  const timer = setTimeout(() => finish(result(id, { content: [{ type: 'text', text: 'no answer to the elicitation in time' }], isError: true })), ANSWER_WITHIN_MS);
  timer.unref();
  res.on('close', () => {
    waiting.delete(askId);
    clearTimeout(timer);
  });
  if (waiting.size >= MAX_WAITING) return finish(result(id, { content: [{ type: 'text', text: 'too many elicitations are waiting' }], isError: true }));
  waiting.set(askId, { owner, answered: (response) => finish(result(id, greeting(response))) });
  res.write(sseEvent({ jsonrpc: '2.0', id: askId, method: 'elicitation/create', params: GREET_ELICITATION }));
}

/** The client's response to an elicitation: whether it answered one of this caller's waiting ones. */
export function answerElicitation(state: MockState, id: JsonRpcId, owner: string, response: { result?: unknown; error?: unknown }): boolean {
  const waiting = waitingOf(state);
  const found = typeof id === 'string' ? waiting.get(id) : undefined;
  if (found === undefined || found.owner !== owner) return false;
  found.answered(response.error !== undefined ? { action: 'cancel' } : response.result);
  return true;
}
