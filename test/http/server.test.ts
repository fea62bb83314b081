import { afterEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'node:http';
import { listen, type Listening } from '../../src/http/server.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function started(...args: Parameters<typeof listen>): Promise<Listening> {
  const listening = await listen(...args);
  cleanup.push(() => listening.close());
  return listening;
}

/** A GET on a kept-alive connection of `agent`: the status and body. */
function get(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('listen: the one way a server starts and stops (src/http/server.ts)', () => {
  it('listens on 127.0.0.1 at a free port unless asked otherwise, and says its URL', async () => {
    const listening = await started((_req, res) => res.end('hello'));
    expect(listening.host).toBe('127.0.0.1');
    expect(listening.port).toBeGreaterThan(0);
    expect(listening.url).toBe(`http://127.0.0.1:${listening.port}`);
    const agent = new Agent({ keepAlive: true });
    cleanup.push(() => agent.destroy());
    expect(await get(`${listening.url}/`, agent)).toEqual({ status: 200, body: 'hello' });
  });

  it('close ends an idle kept-alive connection at once (a client that keeps one holds nothing open)', async () => {
    const listening = await listen((_req, res) => res.end('{}'));
    const agent = new Agent({ keepAlive: true });
    cleanup.push(() => agent.destroy());
    await get(`${listening.url}/`, agent);
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    const started = Date.now();
    await listening.close();
    // node:http's own close would wait for the keep-alive timeout (5 s) of that connection.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(listening.server.listening).toBe(false);
    // The same promise again.
    await listening.close();
  });

  it('with a grace period, a request in progress is answered before the connection ends', async () => {
    let answer: (() => void) | undefined;
    const listening = await listen((_req, res) => {
      answer = () => res.end('late');
    });
    const agent = new Agent({ keepAlive: true });
    cleanup.push(() => agent.destroy());
    const pending = get(`${listening.url}/`, agent);
    await expect.poll(() => answer).toBeDefined();
    const closed = listening.close({ graceMs: 10_000 });
    answer!();
    expect(await pending).toEqual({ status: 200, body: 'late' });
    await closed;
  });

  it('a port in use is refused with the error as Node gives it (each caller words it)', async () => {
    const first = await started((_req, res) => res.end());
    await expect(listen((_req, res) => res.end(), { port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
