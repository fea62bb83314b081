import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { memoryIO } from '../../helpers/io.js';

/** Two servers, three cached logins (two clients on the first): which one `call URL` and `token` take. */
let a: MockServer;
let b: MockServer;
const home = mkdtempSync(join(tmpdir(), 'oauthctl-choice-'));
const cli = async (...args: string[]) => {
  const io = memoryIO({ NO_COLOR: '1', HOME: home, PATH: process.env.PATH ?? '' });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
};
const login = (m: MockServer, ...args: string[]) => cli('login', '--auth-url', m.authUrl, '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--json', '-q', ...args);

beforeAll(async () => {
  a = await createMockServer();
  b = await createMockServer();
  expect((await login(a, '--client-id', 'photo-cli')).code).toBe(0);
  expect((await login(a, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret')).code).toBe(0);
  expect((await login(b, '--client-id', 'photo-cli')).code).toBe(0);
});
afterAll(async () => {
  await a.close();
  await b.close();
  rmSync(home, { recursive: true, force: true });
});

describe('choosing among cached logins', () => {
  it('call URL takes the login of the server the URL is on', async () => {
    const r = await cli('call', `${b.baseUrl}/photos`, '-q');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(b.requests().some((q) => q.path === '/api/photos' && q.status === 200)).toBe(true);
  });

  it('token with a server and no --client-id takes the login of that server', async () => {
    const r = await cli('token', '--auth-url', b.authUrl);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('when the URL does not tell, the hint lists options that work when copied', async () => {
    const r = await cli('call', `${a.baseUrl}/photos`);
    expect(r.code).toBe(2);
    const hint = /\((.*)\)$/.exec(r.err.trim())?.[1] ?? '';
    expect(r.err).toContain('3 logins are cached; say which one');
    const options = hint.split(' | ');
    expect(options).toHaveLength(3);
    // In the words each login was made with (--auth-url), the client id only where a server has two.
    expect(options.sort()).toEqual([`--auth-url ${a.authUrl} --client-id photo-cli`, `--auth-url ${a.authUrl} --client-id photo-web`, `--auth-url ${b.authUrl}`].sort());
    for (const option of options) {
      const copied = await cli('token', ...option.split(' '));
      expect(copied.err).toBe('');
      expect(copied.code).toBe(0);
    }
  });
});
