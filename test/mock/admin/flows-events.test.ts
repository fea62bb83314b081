import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startMock } from '../helpers.js';

type Mock = Awaited<ReturnType<typeof startMock>>;

/** An open GET /_mock/events: its status, and the text received so far, read as it comes. */
interface Listener {
  status: number;
  text: () => string;
  /** Resolves once the text received matches. */
  until: (pattern: RegExp) => Promise<void>;
  close: () => void;
}

const opened: ClientRequest[] = [];

function listen(server: Mock, headers: Record<string, string> = {}): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.authUrl}/_mock/events`, { headers }, (res: IncomingMessage) => {
      let text = '';
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters.splice(0)) w();
      });
      resolve({
        status: res.statusCode ?? 0,
        text: () => text,
        until: async (pattern) => {
          while (!pattern.test(text)) await new Promise<void>((wake) => waiters.push(wake));
        },
        close: () => req.destroy(),
      });
    });
    opened.push(req);
    req.on('error', reject);
    req.end();
  });
}

afterEach(() => {
  for (const req of opened.splice(0)) req.destroy();
});

describe('GET /_mock/events: the flows page hears of each request as it is logged', () => {
  it('sends a change event when a request arrives, and nothing while none does', async () => {
    const server = await startMock();
    const events = await listen(server);
    expect(events.status).toBe(200);
    await events.until(/retry: \d+\n\n/);
    expect(events.text()).not.toMatch(/event: change/);
    await fetch(`${server.authUrl}/jwks`);
    await events.until(/event: change\ndata: \d+\n\n/);
  });

  it('is the admin API: a page of another origin is refused, as the other /_mock/ requests', async () => {
    const server = await startMock();
    const events = await listen(server, { origin: 'http://evil.example' });
    expect(events.status).toBe(403);
  });

  it('holds at most 16 listeners: the next is refused with 503, and a place frees when one leaves', async () => {
    const server = await startMock();
    const listeners = await Promise.all(Array.from({ length: 16 }, () => listen(server)));
    expect(listeners.map((l) => l.status)).toEqual(Array.from({ length: 16 }, () => 200));
    const refused = await listen(server);
    expect(refused.status).toBe(503);
    listeners[0]!.close();
    // The place is free once the mock has seen the connection close: wait for that, not for a time.
    for (;;) {
      const again = await listen(server);
      if (again.status === 200) break;
      again.close();
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
});
