import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface RawServer {
  url: string;
  /** Every connection's bytes as received, in order of connection. */
  received: string[];
  connections: Socket[];
}

/**
 * A server on loopback that answers each request (a head ending in a blank line, and its
 * Content-Length body) with whatever `answer` writes on the socket: the raw bytes a hostile or
 * careless server would send. `after` is given what closes it. `n` counts requests over all connections, `onConnection` those of one.
 */
export async function rawServer(answer: (socket: Socket, request: string, n: number, onConnection: number) => void, after: (close: () => Promise<void>) => void): Promise<RawServer> {
  const received: string[] = [];
  const connections: Socket[] = [];
  let requests = 0;
  const server: Server = createServer((socket) => {
    const index = connections.push(socket) - 1;
    received[index] = '';
    let pending = '';
    let onConnection = 0;
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      received[index] += d.toString('latin1');
      pending += d.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = pending.slice(0, end + 4 + length);
        pending = pending.slice(end + 4 + length);
        answer(socket, request, requests++, onConnection++);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(
    () =>
      new Promise<void>((r) => {
        for (const s of connections) s.destroy();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, connections };
}

/** A 200 answer with a JSON body, framed by Content-Length. */
export const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
