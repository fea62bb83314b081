import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { redact, redactForm, redactHeaderValue, redactParams, redactUrl } from '../../src/output/redact.js';
import { memoryIO } from '../agent/helpers/io.js';

describe('redaction: by name, and by value only where the value is sent', () => {
  it('counts chars in words: "1 char", "8 chars"', () => {
    expect(redact('x')).toBe('[redacted 1 char]');
    expect(redact('password')).toBe('[redacted 8 chars]');
    expect(redact('')).toBe('[redacted 0 chars]');
  });

  it('hides a field whose whole value is a given secret, and nothing else that merely contains its text', () => {
    expect(redactForm('user=password&pwd=password&note=my+password+is', false, ['password'])).toBe('user=%5Bredacted+8+chars%5D&pwd=%5Bredacted+8+chars%5D&note=my+password+is');
    expect(redactForm('a=x&b=xx&c=y', false, ['x'])).toBe('a=%5Bredacted+1+char%5D&b=xx&c=y');
    expect(redactParams({ pin: '1', access_token: 'abc', other: '12' }, false, ['1'])).toEqual({ pin: '[redacted 1 char]', access_token: '[redacted 3 chars]', other: '12' });
    expect(redactUrl('https://h/login?u=a&p=s3cret#f', false, ['s3cret'])).toBe('https://h/login?u=a&p=%5Bredacted+6+chars%5D#f');
    expect(redactHeaderValue('x-pass', 's3cret', false, ['s3cret'])).toBe('[redacted 6 chars]');
    expect(redactHeaderValue('accept', 'text/html', false, ['t'])).toBe('text/html');
    expect(redactForm('pwd=password', true, ['password'])).toBe('pwd=password');
  });
});

describe('--verbose login --headless with a password that is also a common word', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer();
    mock.addUser({ username: 'bob', password: 'password' });
    mock.addUser({ username: 'carol', password: 'a' });
  });
  afterAll(async () => {
    await mock.close();
  });
  const login = async (user: string, password: string) => {
    const io = memoryIO();
    const code = await run(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--headless', '--username', user, '--password', password, '--json', '--verbose'], io);
    return { code, trace: io.err() };
  };

  it('--password password: the sent value is hidden, the page\'s type="password" is left as it is', async () => {
    const { code, trace } = await login('bob', 'password');
    expect(code).toBe(0);
    expect(trace).toContain('type="password"');
    expect(trace).toContain('password=[redacted 8 chars] (password)');
    expect(trace).toMatch(/^> \S*&username=bob&password=\[redacted 8 chars\]$/m);
    expect(trace).not.toMatch(/password=password/);
  });

  it('a 1-character password mangles nothing else in the trace', async () => {
    const { code, trace } = await login('carol', 'a');
    expect(code).toBe(0);
    expect(trace).toContain('[redacted 1 char]');
    expect(trace).not.toMatch(/\[redacted 1 chars\]/);
    expect(trace.match(/\[redacted 1 char\]/g)?.length).toBeLessThanOrEqual(3);
    expect(trace).toContain('Authorization request');
  });
});
