import { describe, expect, it } from 'vitest';
import { decidePageAction, classifyButton, matchesRedirectUri } from '../../src/agent/headless/forms.js';
import { parsePage } from '../../src/agent/headless/page.js';

const credentials = { username: 'alice', password: 'wonderland' };
const redirectUri = 'http://127.0.0.1:5555/callback';
const decide = async (html: string, consent: 'approve' | 'deny' = 'approve', url = 'https://id.example.com/login?x=1') =>
  decidePageAction(await parsePage(html, url), { credentials, consent, redirectUri });

describe('HTML parsing (parse5)', () => {
  it('decodes every named entity and tolerates broken markup', async () => {
    const page = await parsePage('<p class=x data-y = "1 2">caf&eacute; &hellip; &mdash;&#39;&#x2F;<br/><!-- <form> --><form><input name=a value=\'a"b\' disabled><unclosed', 'http://h/');
    expect(page.text).toBe("café … —'/");
    expect(page.forms[0]?.fields[0]).toMatchObject({ name: 'a', value: 'a"b', disabled: true });
    expect(page.forms).toHaveLength(1);
  });

  it('keeps script bodies raw so that markup inside them is not parsed', async () => {
    const page = await parsePage('<script>var s = "<form><input type=password></form>";</script><p>x</p>', 'http://h/');
    expect(page.forms).toHaveLength(0);
    expect(page.scripts).toBe(1);
  });

  it('never takes text in <style>, <script>, <template>, <noscript> or hidden elements as visible', async () => {
    const page = await parsePage(
      `<html><head><title>T</title><style>body { padding-top: 40px; }</style></head><body>
       <style>.x{}</style><script>alert(1)</script><template><p class="error">later</p></template>
       <noscript>enable scripts</noscript><div class="alert" hidden>hidden alert</div>
       <h1>Bad   request</h1><p>the   client is unknown</p></body></html>`,
      'http://h/',
    );
    expect(page.text).toBe('Bad request the client is unknown');
    expect(page.alerts).toEqual([]);
  });
});

describe('page parsing', () => {
  it('finds forms, fields, labels (for= and wrapping) and resolves actions against the page and <base>', async () => {
    const page = await parsePage(
      `<title> Sign &amp; in </title>
       <form id="f" action="../session?a=1" method="post">
         <label for="u">E-mail</label><input id="u" name="user" autocomplete="username">
         <label>Password <input type="password" name="pw"></label>
         <select name="lang"><option value="en">English</option><option value="de" selected>Deutsch</option></select>
         <textarea name="note">hello &amp; bye</textarea>
         <button name="go" value="1">Log <b>in</b></button>
       </form>
       <input name="outside" form="f" value="o">
       <form></form>`,
      'https://id.example.com/app/login',
    );
    expect(page.title).toBe('Sign & in');
    const [form, empty] = page.forms;
    expect(form?.action).toBe('https://id.example.com/session?a=1');
    expect(form?.method).toBe('POST');
    expect(form?.fields.map((f) => [f.name, f.label, f.value])).toEqual([
      ['user', 'E-mail', ''],
      ['pw', 'Password', ''],
      ['lang', '', 'de'],
      ['note', '', 'hello & bye'],
      ['go', '', '1'],
      ['outside', '', 'o'],
    ]);
    expect(form?.fields.find((f) => f.name === 'go')?.text).toBe('Log in');
    expect(empty?.action).toBe('https://id.example.com/app/login');
    expect(empty?.method).toBe('GET');
    const based = await parsePage('<base href="https://other.example.com/x/"><form action="y"></form>', 'https://id.example.com/');
    expect(based.forms[0]?.action).toBe('https://other.example.com/x/y');
  });

  it('collects alert texts, links and a meta refresh', async () => {
    const page = await parsePage(
      '<div class="alert alert-danger"><span>Invalid</span> password</div><a href="/abort">[ Cancel ]</a><meta http-equiv="refresh" content="0; url=/next">',
      'http://h/a/b',
    );
    expect(page.alerts).toEqual(['Invalid password']);
    expect(page.links).toEqual([{ href: 'http://h/abort', text: '[ Cancel ]' }]);
    expect(page.metaRefresh).toBe('http://h/next');
  });
});

describe('choosing and filling forms', () => {
  it('fills the account name and password of the login form, keeps hidden fields, skips the cancel button', async () => {
    const action = await decide(`<form action="/search"><input name="q"><button>Search</button></form>
      <form method="post" action="/login"><input type="hidden" name="csrf" value="t&amp;1">
      <input type="text" name="q2" placeholder="nickname">
      <input type="email" name="mail" autocomplete="email">
      <input type="password" name="pwd">
      <input type="checkbox" name="remember"><input type="checkbox" name="terms" checked>
      <input type="submit" name="cancel" value="Cancel"><input type="submit" name="signin" value="Sign in"></form>`);
    expect(action.kind).toBe('login');
    if (action.kind !== 'login') return;
    expect(action.submission.method).toBe('POST');
    expect(action.submission.url).toBe('https://id.example.com/login');
    expect(new URLSearchParams(action.submission.body).toString()).toBe('csrf=t%261&q2=&mail=alice&pwd=wonderland&terms=on&signin=Sign+in');
    expect(action.submission.fields.find((f) => f.name === 'pwd')?.role).toBe('password');
  });

  it('finds the account-name field by its label, and by position when nothing names it', async () => {
    const byLabel = await decide('<form method=post><label for=a>Your user ID</label><input id=a name=f1><input name=f2 type=password></form>');
    expect(byLabel.kind === 'login' && byLabel.submission.body).toBe('f1=alice&f2=wonderland');
    const byPosition = await decide('<form method=post><input name=x1><input name=x2 type=password></form>');
    expect(byPosition.kind === 'login' && byPosition.submission.body).toBe('x1=alice&x2=wonderland');
    const passwordOnly = await decide('<form method=post><input type=hidden name=user value=alice><input name=secret type=password></form>');
    expect(passwordOnly.kind === 'login' && passwordOnly.hasUsername).toBe(false);
  });

  it('prefers the current-password field over a new-password one', async () => {
    const action = await decide(
      '<form method=post><input name=u autocomplete=username><input type=password name=new autocomplete=new-password><input type=password name=cur autocomplete=current-password></form>',
    );
    expect(action.kind === 'login' && action.submission.body).toBe('u=alice&new=&cur=wonderland');
  });

  it('submits a GET form with its fields as the query', async () => {
    const action = await decide('<form action="/next?old=1#frag"><input name="username"><input type=password name=password></form>');
    expect(action.kind === 'login' && action.submission.url).toBe('https://id.example.com/next?username=alice&password=wonderland');
  });

  it('treats an account-name form without a password as identifier-first', async () => {
    const action = await decide('<form method=post><input name=email type=email><button>Next</button></form>');
    expect(action.kind).toBe('identifier');
  });

  it("answers consent with the approve or deny button, including that button's name and value", async () => {
    const html = '<form method=post action=/decide><input type=hidden name=tx value=9><button name=choice value=no>Deny</button><button name=choice value=yes>Allow</button></form>';
    const approve = await decide(html);
    expect(approve.kind === 'consent' && approve.submission.body).toBe('tx=9&choice=yes');
    const deny = await decide(html, 'deny');
    expect(deny.kind === 'consent' && deny.submission.body).toBe('tx=9&choice=no');
  });

  it('classifies buttons by text, value and name', async () => {
    const b = (text: string, value = '', name = '') => ({ tag: 'button' as const, type: 'submit', name, value, id: '', autocomplete: '', label: '', checked: false, disabled: false, text });
    expect(classifyButton(b('Yes, allow'))).toBe('approve');
    expect(classifyButton(b('Disallow'))).toBe('deny');
    expect(classifyButton(b("Don't allow"))).toBe('deny');
    expect(classifyButton(b('', 'Accept'))).toBe('approve');
    expect(classifyButton(b('', '', 'cancel'))).toBe('deny');
    expect(classifyButton(b('Weiter'))).toBeUndefined();
  });

  it('uses a deny link when the page has no deny button (panva/oidc-provider), and a lone button to go on', async () => {
    const html = '<form method=post action=/confirm><input type=hidden name=prompt value=consent><button>Continue</button></form><a href="/abort">[ Cancel ]</a>';
    expect(await decide(html, 'deny')).toMatchObject({ kind: 'consent-link', link: { href: 'https://id.example.com/abort' } });
    expect(await decide('<form method=post><button>Weiter</button></form>')).toMatchObject({ kind: 'consent' });
    expect(await decide('<form method=post><button>Weiter</button><button>Zurück</button></form>')).toMatchObject({ kind: 'stuck', reason: 'no-decision' });
  });

  it('submits a form_post response and script-submitted hidden forms, follows a meta refresh', async () => {
    const post = await decide(`<form method=post action="${redirectUri}"><input type=hidden name=code value=c><input type=hidden name=state value=s></form>`, 'deny');
    expect(post).toMatchObject({ kind: 'auto-submit', submission: { method: 'POST', url: redirectUri, body: 'code=c&state=s' } });
    const hidden = await decide('<form method=post action=/continue><input type=hidden name=t value=1></form><script>document.forms[0].submit()</script>');
    expect(hidden).toMatchObject({ kind: 'auto-submit', submission: { url: 'https://id.example.com/continue' } });
    expect(await decide('<meta http-equiv=refresh content="0;URL=\'/x\'">')).toEqual({ kind: 'refresh', url: 'https://id.example.com/x' });
  });

  it('says when a page needs JavaScript and when it has nothing to act on', async () => {
    expect(await decide('<div id=app></div><script src=/app.js></script>')).toMatchObject({ kind: 'stuck', reason: 'needs-javascript' });
    expect(await decide('<h1>Error</h1><p>invalid redirect_uri</p>')).toMatchObject({ kind: 'stuck', reason: 'no-form' });
  });

  it('matches the redirect URI by origin and path', async () => {
    expect(matchesRedirectUri('http://127.0.0.1:5555/callback?code=1', redirectUri)).toBe(true);
    expect(matchesRedirectUri('http://127.0.0.1:5556/callback', redirectUri)).toBe(false);
    expect(matchesRedirectUri('http://127.0.0.1:5555/callback/x', redirectUri)).toBe(false);
    expect(matchesRedirectUri('not a url', redirectUri)).toBe(false);
  });
});
