import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, ROOT } from '../helpers/cli.js';

describe('serve-mock on SIGTERM or SIGINT', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: stops accepting, lets a request in flight finish, exits 0', async (signal) => {
    const child = spawn(process.execPath, [BIN, 'serve-mock', '--port', '0', '--json'], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const { issuer } = JSON.parse(line) as { issuer: string };
      // A token request whose body trickles in: half now, the rest after the signal.
      const body = 'grant_type=authorization_code&code=unknown&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&client_id=photo-cli';
      const req = request(`${issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
      });
      req.write(body.slice(0, 20));
      await new Promise((r) => setTimeout(r, 200));
      const closed = once(child, 'close');
      child.kill(signal);
      await new Promise((r) => setTimeout(r, 300));
      // No new connections once the signal is handled.
      await expect(fetch(`${issuer}/.well-known/openid-configuration`)).rejects.toThrow();
      req.end(body.slice(20));
      const answer = await response;
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: 'invalid_grant' });
      const [code] = (await closed) as [number];
      expect(code).toBe(0);
      expect(stderr).toMatch(/"path":"\/token","status":400/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
