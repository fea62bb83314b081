import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hasResponded, respond } from '../../src/mock/core/http/http.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('respond: responses leave at the end of the event-loop turn', () => {
  it('sets the status at once, writes in the same turn, and refuses a second response', async () => {
    const seen: Record<string, unknown>[] = [];
    server = createServer((_req, res) => {
      respond(res, 201, { 'Content-Type': 'text/plain', 'Content-Length': 2 }, 'ok');
      let second: unknown;
      try {
        respond(res, 500, {}, 'no');
      } catch (err) {
        second = (err as Error).message;
      }
      const now = { statusCode: res.statusCode, headersSent: res.headersSent, responded: hasResponded(res), second };
      setImmediate(() => seen.push({ ...now, sentNextTurn: res.headersSent }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answers = await Promise.all([1, 2, 3].map(() => fetch(`http://127.0.0.1:${port}/`)));
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(await answer.text()).toBe('ok');
    }
    expect(seen).toHaveLength(3);
    for (const s of seen) expect(s).toEqual({ statusCode: 201, headersSent: false, responded: true, second: 'a second response to one request', sentNextTurn: true });
  });

  it('a connection that went away before its turn does not stop the others', async () => {
    server = createServer((req, res) => {
      if (req.url === '/gone') req.socket.destroy();
      respond(res, 200, { 'Content-Length': 2 }, 'ok');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const [gone, fine] = await Promise.allSettled([fetch(`http://127.0.0.1:${port}/gone`), fetch(`http://127.0.0.1:${port}/fine`)]);
    expect(gone.status).toBe('rejected');
    expect(fine.status === 'fulfilled' && fine.value.status).toBe(200);
  });
});
