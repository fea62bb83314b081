import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { formatTimeLeft } from '../../../src/output/spinner.js';
import { memoryIO as streamsIO } from '../../helpers/io.js';

let mock: MockServer;
const home = mkdtempSync(join(tmpdir(), 'oauthctl-waiting-'));
const memoryIO = (stdin: string | Readable = '') => streamsIO({ NO_COLOR: '1', HOME: home, PATH: process.env.PATH ?? '' }, stdin);
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
});

describe('waiting for the redirect', () => {
  it('a timeout says what usually causes it and how to see it', async () => {
    const io = memoryIO();
    const code = await run(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--no-browser', '--timeout', '1', '--redirect-uri', 'http://127.0.0.1/callback'], io);
    expect(code).toBe(1);
    const line = io
      .err()
      .split('\n')
      .find((l) => l.startsWith('oauthctl: error:'));
    expect(line).toMatch(/timed out after 1 s waiting for the redirect to http:\/\/127\.0\.0\.1:(\d+)\/callback: nothing came back/);
    const port = /127\.0\.0\.1:(\d+)\/callback/.exec(line ?? '')?.[1];
    expect(line).toContain('the redirect URI, or its port, is not registered for the client');
    expect(line).toContain('the login was not finished');
    expect(line).toContain('run again with --no-browser and open the URL it prints');
    expect(line).toContain(`oauthctl listen --port ${port} --path /callback`);
  });

  it('one countdown format: minutes and seconds', () => {
    expect(formatTimeLeft(245_000)).toBe('4:05');
    expect(formatTimeLeft(900)).toBe('0:01');
    expect(formatTimeLeft(-5)).toBe('0:00');
  });
});

describe('login --manual', () => {
  const manual = (io: ReturnType<typeof memoryIO>) => run(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--manual', '--timeout', '20', '--json'], io);

  it('shows no countdown of a listener, and fails on a wrong piped URL at once', async () => {
    const io = memoryIO('https://elsewhere.example/nothing\n');
    expect(await manual(io)).toBe(2);
    expect(io.err()).not.toMatch(/Waiting for the redirect|left, Ctrl-C/);
    expect(io.err()).toContain('oauthctl: error: the pasted URL does not go to the redirect URI');
  });

  it('at a terminal, asks again after a mistaken paste', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    const io = memoryIO(stdin);
    (io.stderr as PassThrough & { isTTY?: boolean }).isTTY = true;
    const done = manual(io);
    let authorizationUrl: string | undefined;
    for (let i = 0; i < 100 && !authorizationUrl; i++) {
      await new Promise((r) => setTimeout(r, 20));
      authorizationUrl = /^ {2}(http\S+\/authorize\?\S+)$/m.exec(io.err())?.[1];
    }
    expect(authorizationUrl).toBeDefined();
    const location = (await fetch(authorizationUrl!, { redirect: 'manual' })).headers.get('location');
    stdin.write('not a url at all\r');
    for (let i = 0; i < 100 && !io.err().includes('Paste the address again'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(io.err()).toContain('the pasted text is not a URL');
    stdin.write(`${location}\r`);
    expect(await done).toBe(0);
    expect(JSON.parse(io.out())).toHaveProperty('access_token');
    expect(io.err()).not.toMatch(/left, Ctrl-C/);
  });
});
