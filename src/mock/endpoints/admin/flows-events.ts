import type { ServerResponse } from 'node:http';
import type { Exchange, MockState } from '../../core/http/http.js';

/** At most this many pages listen at once: each holds a connection, and more are refused (503). */
const MAX_LISTENERS = 16;
/** How often the log is looked at while a page listens. */
const CHECK_MS = 200;

interface Listeners {
  pages: Map<ServerResponse, number>;
  timer: NodeJS.Timeout | undefined;
}

const byState = new WeakMap<MockState, Listeners>();

/**
 * GET /_mock/events: server-sent events (HTML Living Standard, section 9.2) that tell the flows page
 * a request was logged; the page then fetches itself again. One timer for all pages looks at the log's
 * count of requests. A page that reads slowly is sent nothing more until its connection has drained,
 * and then only the latest count: nothing piles up for it.
 */
export function sendFlowsEvents(ex: Exchange): void {
  const listeners = byState.get(ex.state) ?? { pages: new Map<ServerResponse, number>(), timer: undefined };
  byState.set(ex.state, listeners);
  const { res } = ex;
  ex.log.outcome = 'ok';
  if (listeners.pages.size >= MAX_LISTENERS) {
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'Retry-After': '5' }).end('Too many pages listen already\n');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.write('retry: 2000\n\n');
  listeners.pages.set(res, ex.state.requests.count);
  res.on('close', () => {
    listeners.pages.delete(res);
    if (listeners.pages.size === 0 && listeners.timer) {
      clearInterval(listeners.timer);
      listeners.timer = undefined;
    }
  });
  listeners.timer ??= setInterval(() => tell(ex.state, listeners), CHECK_MS).unref();
}

function tell(state: MockState, listeners: Listeners): void {
  const count = state.requests.count;
  for (const [res, told] of listeners.pages) {
    if (told === count || res.writableNeedDrain) continue;
    listeners.pages.set(res, count);
    res.write(`event: change\ndata: ${count}\n\n`);
  }
}
