// What a trace redacts, by name in the HAR's structure, then every value so found wherever
// else it appears (a code in a form_post page, a Location, a fragment; a password under any field name).
import { describe, expect, it } from 'vitest';
import { buildHar, HarRecorder, stepOf, type RecordedExchange } from '../../src/output/har.js';
import { redactHar } from '../../src/output/har-redact.js';

function exchange(x: Partial<RecordedExchange> & { url: string }): RecordedExchange {
  return { actor: 'client', startedAt: 1_700_000_000_000, durationMs: 3, method: 'GET', requestHeaders: [], status: 200, responseHeaders: [], responseBody: '', ...x };
}

const FORM = ['content-type', 'application/x-www-form-urlencoded'] as [string, string];

describe('redactHar', () => {
  const recorder = new HarRecorder();
  recorder.addSecret('hunter2-long');
  recorder.record(
    exchange({
      actor: 'user-agent',
      method: 'POST',
      url: 'https://as.example/login',
      requestHeaders: [FORM, ['cookie', 'sid=session-cookie-value; theme=dark']],
      requestBody: 'username=alice&pwd=hunter2-long',
      status: 302,
      responseHeaders: [
        ['location', 'http://127.0.0.1:5000/callback#code=the-authorization-code&state=st'],
        ['set-cookie', 'sid=new-session-cookie; Path=/; HttpOnly'],
      ],
    }),
  );
  recorder.record(
    exchange({
      actor: 'user-agent',
      url: 'https://as.example/consent',
      responseHeaders: [['content-type', 'text/html']],
      responseBody: '<form method="post"><input type="hidden" name="code" value="the-authorization-code"></form>',
    }),
  );
  recorder.record(
    exchange({
      method: 'POST',
      url: 'https://as.example/token',
      requestHeaders: [FORM, ['authorization', `Basic ${Buffer.from('app:s3cret%2Bplus').toString('base64')}`], ['dpop', 'eyJhbGciOiJFUzI1NiJ9.eyJodG0iOiJQT1NUIn0.c2lnbmF0dXJlLXZhbHVl']],
      requestBody: 'grant_type=authorization_code&code=the-authorization-code&code_verifier=verifier-verifier-verifier',
      responseHeaders: [['content-type', 'application/json']],
      responseBody: JSON.stringify({ access_token: 'at-at-at-at', nested: { refresh_token: 'rt-rt-rt-rt' }, token_type: 'DPoP' }),
    }),
  );
  const har = redactHar(buildHar(recorder, { redacted: true, version: 't' }), recorder.secrets);
  const text = JSON.stringify(har);

  it.each([
    'hunter2-long',
    'session-cookie-value',
    'new-session-cookie',
    'the-authorization-code',
    's3cret+plus',
    's3cret%2Bplus',
    'verifier-verifier-verifier',
    'at-at-at-at',
    'rt-rt-rt-rt',
    'c2lnbmF0dXJlLXZhbHVl',
  ])('%s is nowhere in the file', (secret) => {
    expect(text).not.toContain(secret);
  });

  it('keeps what a flow is debugged by, and the shape of what it hid', () => {
    const [login, consent, token] = har.log.entries;
    expect(login!.request.postData!.params).toEqual([
      { name: 'username', value: 'alice' },
      { name: 'pwd', value: '[redacted 12 chars]' },
    ]);
    expect(login!.request.cookies).toEqual([
      { name: 'sid', value: '[redacted 20 chars]' },
      { name: 'theme', value: '[redacted 4 chars]' },
    ]);
    expect(login!.response.redirectURL).toBe('http://127.0.0.1:5000/callback#code=%5Bredacted+22+chars%5D&state=st');
    expect(consent!.response.content.text).toContain('value="[redacted 22 chars]"');
    expect(token!.request.headers.find((h) => h.name === 'authorization')!.value).toMatch(/^Basic \[redacted \d+ chars\]$/);
    expect(token!.request.headers.find((h) => h.name === 'dpop')!.value).toBe('eyJhbGciOiJFUzI1NiJ9.eyJodG0iOiJQT1NUIn0.[signature redacted]');
    expect(JSON.parse(token!.response.content.text!)).toEqual({ access_token: '[redacted 11 chars]', nested: { refresh_token: '[redacted 11 chars]' }, token_type: 'DPoP' });
    expect(token!.request.postData!.text).toContain('grant_type=authorization_code');
  });
});

describe('stepOf', () => {
  it.each([
    [{ url: 'https://as.example/.well-known/openid-configuration' }, 'discovery'],
    [{ url: 'https://as.example/authorize?response_type=code&client_id=a', actor: 'user-agent' as const }, 'authorization'],
    [{ url: 'https://as.example/authorize?client_id=a&request_uri=urn:x', actor: 'user-agent' as const }, 'authorization'],
    [{ url: 'https://as.example/any', method: 'POST', requestHeaders: [FORM], requestBody: 'grant_type=refresh_token' }, 'refresh'],
    [{ url: 'https://as.example/any', method: 'POST', requestHeaders: [FORM], requestBody: 'grant_type=urn:ietf:params:oauth:grant-type:token-exchange' }, 'token-exchange'],
    [{ url: 'http://127.0.0.1:5000/callback?code=x', actor: 'listener' as const }, 'callback'],
    [{ url: 'https://as.example/oauth2/introspect', method: 'POST' }, 'introspection'],
    [{ url: 'https://api.example/photos' }, 'resource'],
    [{ url: 'not a url' }, 'resource'],
  ])('%j is %s', (x, step) => {
    expect(stepOf(exchange(x))).toBe(step);
  });
});
