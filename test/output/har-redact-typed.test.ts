// A password typed into a login form is scrubbed wherever a form value can travel, whatever the field
// is called and however short it is, without destroying the rest of the file.
import { describe, expect, it } from 'vitest';
import { buildHar, HarRecorder, type RecordedExchange } from '../../src/output/har.js';
import { redactHar } from '../../src/output/har-redact.js';

function exchange(x: Partial<RecordedExchange> & { url: string }): RecordedExchange {
  return { actor: 'user-agent', startedAt: 1_700_000_000_000, durationMs: 3, method: 'GET', requestHeaders: [], status: 200, responseHeaders: [], responseBody: '', ...x };
}
const FORM = ['content-type', 'application/x-www-form-urlencoded'] as [string, string];

function traceWith(password: string, exchanges: RecordedExchange[]) {
  const recorder = new HarRecorder();
  recorder.addSecret(password);
  for (const x of exchanges) recorder.record(x);
  return redactHar(buildHar(recorder, { redacted: true, version: 't' }), recorder.secrets);
}

describe('the typed password, 3 characters, under the name passwd (Entra ID)', () => {
  const har = traceWith('a&b', [
    exchange({
      method: 'POST',
      url: 'https://login.example/common/login?passwd=a%26b&flow=abc',
      requestHeaders: [FORM, ['x-echo', 'a&b'], ['referer', 'https://login.example/start?k=a%26b&abcdef=1']],
      requestBody: 'loginfmt=alice&passwd=a%26b&other=a%26bc',
      status: 200,
      responseHeaders: [['content-type', 'text/html; charset=utf-8']],
      responseBody: '<form><input name="loginfmt" value="alice"><input name="passwd" type="password" value="a&amp;b"><p>a&amp;bc and a&amp;b</p></form>',
    }),
    exchange({
      method: 'POST',
      url: 'https://login.example/api/GetCredentialType',
      requestHeaders: [['content-type', 'application/json']],
      requestBody: JSON.stringify({ username: 'alice', proof: { p: 'a&b' }, list: ['a&b', 'a&bc'] }),
      responseHeaders: [['content-type', 'application/json']],
      responseBody: JSON.stringify({ echoed: 'a&b' }),
    }),
  ]);
  const [login, api] = har.log.entries;

  it('in the query, the form body (text and params), a header, the Referer', () => {
    expect(login!.request.queryString).toEqual([
      { name: 'passwd', value: '[redacted 3 chars]' },
      { name: 'flow', value: 'abc' },
    ]);
    expect(new URL(login!.request.url).searchParams.get('passwd')).toBe('[redacted 3 chars]');
    expect(login!.request.postData!.params).toContainEqual({ name: 'passwd', value: '[redacted 3 chars]' });
    expect(new URLSearchParams(login!.request.postData!.text).get('passwd')).toBe('[redacted 3 chars]');
    expect(login!.request.headers).toContainEqual({ name: 'x-echo', value: '[redacted 3 chars]' });
    expect(new URL(login!.request.headers.find((h) => h.name === 'referer')!.value).searchParams.get('k')).toBe('[redacted 3 chars]');
  });

  it('in a page attribute and in JSON bodies at any depth', () => {
    expect(login!.response.content.text).toContain('type="password" value="[redacted 3 chars]"');
    expect(JSON.parse(api!.request.postData!.text)).toEqual({ username: 'alice', proof: { p: '[redacted 3 chars]' }, list: ['[redacted 3 chars]', 'a&bc'] });
    expect(JSON.parse(api!.response.content.text!)).toEqual({ echoed: '[redacted 3 chars]' });
  });

  it('the rest of the file stays: values that merely contain the password, page text', () => {
    expect(new URLSearchParams(login!.request.postData!.text).get('other')).toBe('a&bc');
    expect(new URLSearchParams(login!.request.postData!.text).get('loginfmt')).toBe('alice');
    expect(login!.response.content.text).toContain('<p>a&amp;bc and a&amp;b</p>');
    expect(login!.response.content.text).toContain('value="alice"');
    expect(login!.request.headers.find((h) => h.name === 'referer')!.value).toContain('abcdef=1');
  });
});

describe('a password field by its name, typed where oauthctl never saw it (Chromium)', () => {
  it.each(['password', 'passwd', 'pwd', 'pass', 'user[password]', 'Passphrase', 'pin'])('%s', (name) => {
    const har = traceWith('unused-secret', [
      exchange({ method: 'POST', url: 'https://as.example/login', requestHeaders: [FORM], requestBody: new URLSearchParams({ user: 'alice', [name]: 'x9' }).toString() }),
    ]);
    expect(har.log.entries[0]!.request.postData!.params).toEqual([
      { name: 'user', value: 'alice' },
      { name, value: '[redacted 2 chars]' },
    ]);
  });

  it('names that only look alike are kept', () => {
    const har = traceWith('unused-secret', [exchange({ method: 'POST', url: 'https://as.example/login', requestHeaders: [FORM], requestBody: 'compass=n&spinner=1&passage=3' })]);
    expect(har.log.entries[0]!.request.postData!.text).toBe('compass=n&spinner=1&passage=3');
  });
});

describe('a long typed password is searched for everywhere, however it is written', () => {
  it('as is, URL-encoded, JSON-escaped and HTML-escaped in free text', () => {
    const password = 'pa"ss<&>word "1';
    const har = traceWith(password, [
      exchange({
        url: 'https://as.example/page',
        responseHeaders: [['content-type', 'text/html']],
        responseBody: `<script>var p = ${JSON.stringify(password)};</script><p>${password.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')}</p><a href="/x?q=${encodeURIComponent(password)}">x</a>`,
      }),
    ]);
    const text = JSON.stringify(har);
    expect(har.log.entries[0]!.response.content.text).not.toContain('ss<&>word');
    expect(har.log.entries[0]!.response.content.text).not.toContain('ss&lt;&amp;&gt;word');
    expect(har.log.entries[0]!.response.content.text).not.toContain(encodeURIComponent(password));
    expect(text).not.toContain('ss\\\\u003c');
    expect(har.log.entries[0]!.response.content.text).toContain('<script>var p = "[redacted 15 chars]";</script>');
  });
});
