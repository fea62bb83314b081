// What a person debugging a redirect reads on the trace page (and the --ui page, which is the same
// flow): the client and the redirect URI on each arrow, a server's HTML page drawn safely beside its
// source, exchanges numbered 1 to N as the count says, the listener's own answers named as oauthctl's.
import { describe, expect, it } from 'vitest';
import { checkTrace } from '../../src/audit/trace-check.js';
import type { TraceEntry, TraceFile } from '../../src/output/har-read.js';
import { paramLines } from '../../src/output/sequence-svg.js';
import { renderTraceFlow } from '../../src/output/trace-html.js';

const AS = 'http://127.0.0.1:9000';
const CALLBACK = 'http://127.0.0.1:53124/callback';

function entry(over: Partial<TraceEntry>): TraceEntry {
  return {
    actor: 'client',
    step: 'discovery',
    startedDateTime: '2026-12-01T22:00:00.000Z',
    time: 5,
    method: 'GET',
    url: `${AS}/.well-known/openid-configuration`,
    requestHeaders: [],
    requestMimeType: '',
    status: 200,
    responseHeaders: [{ name: 'content-type', value: 'application/json' }],
    responseBody: '{}',
    responseMimeType: 'application/json',
    handoff: false,
    ...over,
  };
}

const authorize = `${AS}/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'photo-cli', redirect_uri: CALLBACK, scope: 'openid', state: 's1', code_challenge_method: 'S256' })}`;
const callback = `${CALLBACK}?code=c1&state=s1`;

/** A headless login: the redirect recorded by the user agent and by the listener (one exchange, drawn once). */
const login: TraceFile = {
  omitted: 0,
  redacted: true,
  entries: [
    entry({}),
    entry({ step: 'authorization', url: authorize, handoff: true, status: 0, responseHeaders: [], responseBody: '', responseMimeType: '' }),
    entry({ actor: 'user-agent', step: 'authorization', url: authorize, status: 302, responseHeaders: [{ name: 'location', value: callback }], responseBody: '' }),
    entry({ actor: 'user-agent', step: 'callback', url: callback, status: 0, responseBody: '' }),
    entry({ actor: 'listener', step: 'callback', url: callback, status: 200, responseBody: '<p>ok</p>', responseMimeType: 'text/html' }),
    entry({
      step: 'token',
      method: 'POST',
      url: `${AS}/token`,
      requestBody: `grant_type=authorization_code&client_id=photo-cli&redirect_uri=${encodeURIComponent(CALLBACK)}`,
      requestMimeType: 'application/x-www-form-urlencoded',
    }),
  ],
};

const summaries = (html: string) => [...html.matchAll(/<summary>(\d+)\. ([^<]*)/g)].map((m) => `${m[1]}. ${m[2]}`);

describe('the trace page for a person debugging a redirect', () => {
  it('names client_id and redirect_uri in the summary of the authorization and token requests', () => {
    const html = renderTraceFlow(login);
    const lines = summaries(html);
    expect(lines.find((l) => l.includes('send to /authorize'))).toContain(`(response_type=code, client_id=photo-cli, redirect_uri=${CALLBACK}, scope=openid, state=s1, code_challenge_method=S256)`);
    expect(lines.find((l) => l.includes('POST /token'))).toContain(`(grant_type=authorization_code, client_id=photo-cli, redirect_uri=${CALLBACK})`);
  });

  it('numbers the exchanges 1 to N with N the count it gives: the redirect both recorded is one, and takes no number', () => {
    const html = renderTraceFlow(login);
    expect(html).toMatch(/^<p class="muted">5 HTTP exchanges \(a redirect that both the user agent and oauthctl's listener recorded is shown once\)\./);
    expect(summaries(html).map((l) => Number(l.split('.')[0]))).toEqual([1, 2, 3, 4, 5]);
    // Each arrow's link goes to an exchange on the page.
    for (const [, ref] of html.matchAll(/<a href="#(x\d+)" aria-label/g)) expect(html).toContain(`id="${ref}"`);
    // The first failure links the number it shows.
    const failing: TraceFile = { ...login, entries: [...login.entries, entry({ step: 'userinfo', url: `${AS}/userinfo`, status: 401 })] };
    expect(renderTraceFlow(failing)).toContain('at <a href="#x6">exchange 6, userinfo</a>: HTTP 401');
  });

  it('trace --check names an exchange by the number the page shows', () => {
    const moved = login.entries.map((e) =>
      e.step === 'token' ? { ...e, requestBody: `grant_type=authorization_code&client_id=photo-cli&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/cb')}` } : e,
    );
    const findings = checkTrace({ ...login, entries: moved });
    // The token request is the fifth exchange drawn (the sixth entry of the file).
    expect(findings.find((f) => f.id === 'redirect-uri-changed')?.exchange).toBe(5);
    expect(summaries(renderTraceFlow({ ...login, entries: moved }))[4]).toMatch(/^5\. client to authorization server: POST \/token/);
  });

  it("lists an audit probe's exchanges by the numbers shown", () => {
    const audit: TraceFile = { ...login, entries: login.entries.map((e) => ({ ...e, probe: 'flow' })) };
    const list = /<ol>(.*?)<\/ol>/.exec(renderTraceFlow(audit))![1]!;
    expect([...list.matchAll(/href="#x(\d+)">(\d+)\./g)].map((m) => [m[1], m[2]])).toEqual([
      ['1', '1'],
      ['2', '2'],
      ['3', '3'],
      ['4', '4'],
      ['4', '4'],
      ['5', '5'],
    ]);
  });

  it("draws a server's HTML page in a sandboxed srcdoc frame under a CSP that loads nothing, with its source as text", () => {
    const page = `<!doctype html><title>Bad request</title><p>redirect_uri "x" is not registered</p><ul><li>http://127.0.0.1/callback</li></ul><script>parent.pwned = 1</script><img src="http://127.0.0.1:1/x" onerror="alert(1)">"' &amp;`;
    const file: TraceFile = {
      omitted: 0,
      redacted: true,
      entries: [entry({ actor: 'user-agent', step: 'authorization', url: authorize, status: 400, responseBody: page, responseMimeType: 'text/html; charset=utf-8' })],
    };
    const html = renderTraceFlow(file);
    const frames = [...html.matchAll(/<iframe ([^>]*)><\/iframe>/g)].map((m) => m[1]!);
    expect(frames).toHaveLength(1);
    const frame = frames[0]!;
    // No keyword: no script, no form, no popup, no top navigation, no refresh.
    expect(frame).toMatch(/^class="server-page" sandbox="" referrerpolicy="no-referrer" title="[^"]+" srcdoc="[^"]*"$/);
    const srcdoc = /srcdoc="([^"]*)"/.exec(frame)![1]!;
    // The page's own quotes and tags cannot leave the attribute: all escaped, the CSP first in its document.
    expect(srcdoc).not.toMatch(/[<>"']/);
    const decoded = srcdoc.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    expect(decoded).toBe(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">${page}`);
    // The source view stays, as text.
    expect(html).toContain('<details class="source"><summary>Source of the page</summary><pre>&#60;!doctype html&#62;&#60;title&#62;Bad request');
    expect(html).not.toContain('<script>');
  });

  it('shows any other body as text, as before', () => {
    const file: TraceFile = { omitted: 0, redacted: true, entries: [entry({ responseBody: '<b>not html</b>', responseMimeType: 'text/plain' })] };
    const html = renderTraceFlow(file);
    expect(html).not.toContain('<iframe');
    expect(html).toContain('<pre>&#60;b&#62;not html&#60;/b&#62;</pre>');
  });

  it("names an answer of oauthctl's own listener as oauthctl's, not the server's", () => {
    const moved = 'http://127.0.0.1:53124/other?code=c1&state=s1';
    const file: TraceFile = {
      omitted: 0,
      redacted: true,
      entries: [
        entry({
          actor: 'user-agent',
          step: 'callback',
          url: moved,
          status: 404,
          responseHeaders: [
            { name: 'content-type', value: 'text/plain' },
            { name: 'x-oauthctl-listener', value: '1' },
          ],
          responseBody: "Not found: oauthctl's redirect listener does not wait here\n",
          responseMimeType: 'text/plain',
        }),
      ],
    };
    const html = renderTraceFlow(file);
    expect(html).toContain('exchange 1, callback</a>: HTTP 404 from oauthctl&#39;s redirect listener, not the server</p>');
    expect(html).toContain("<p>HTTP 404, answered by oauthctl's redirect listener</p>");
  });
});

describe("an arrow's parameters", () => {
  it('wrap onto at most three lines, a parameter never split, … where some are left out', () => {
    const params = ['response_type=code', 'client_id=photo-cli', `redirect_uri=${CALLBACK}`, 'scope=openid photo', 'state=af0ifjsldkj', 'code_challenge_method=S256'];
    expect(paramLines(params, 200)).toEqual([params.join(' ')]);
    expect(paramLines(params, 60)).toEqual(
      [
        'response_type=code client_id=photo-cli',
        `redirect_uri=${CALLBACK}`,
        'scope=openid photo state=af0ifjsldkj',
        // the fourth line's worth is left out
      ].map((l, i) => (i === 2 ? `${l} …` : l)),
    );
    expect(paramLines([`redirect_uri=${'a'.repeat(100)}`], 40)).toEqual([`redirect_uri=${'a'.repeat(26)}…`]);
    expect(paramLines([], 40)).toEqual([]);
  });
});
