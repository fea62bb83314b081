import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const base = ['--auth-url', 'http://127.0.0.1:9', '--client-id', 'c'];

describe('bad flow options exit 2 with one line, no stack trace', () => {
  it.each([
    [['url', '--client-id', 'c'], /no authorization server given/],
    [['url', '--auth-url', 'http://127.0.0.1:9'], /--client-id is required/],
    [['url', '--auth-url', 'not a url', '--client-id', 'c'], /--auth-url is not a valid URL/],
    [['url', '--issuer', 'ftp://x', '--client-id', 'c'], /--issuer must be an http or https URL/],
    [['url', ...base, '--auth-method', 'client_secret_magic'], /client_secret_magic.*invalid|Allowed choices/],
    [['url', ...base, '--auth-method', 'private_key_jwt'], /--auth-method private_key_jwt needs --signing-key FILE/],
    [['url', ...base, '--auth-method', 'client_secret_basic'], /needs a client secret/],
    [['url', ...base, '--auth-method', 'none', '--client-secret', 's'], /sends no client secret/],
    [['url', ...base, '--code-verifier', 'too-short'], /--code-verifier: code verifier must be 43 to 128 characters/],
    [['url', ...base, '--code-verifier', `${'a'.repeat(50)}+`], /may only contain/],
    [['url', ...base, '--param', 'prompt'], /--param "prompt" is not of the form name=value/],
    [['url', ...base, '--param', 'state=x'], /--param cannot set state/],
    [['url', ...base, '--redirect-uri', 'http://127.0.0.1/cb#frag'], /must not contain a fragment/],
    [['url', ...base, '--redirect-uri', 'relative/path'], /--redirect-uri is not a valid absolute URI/],
    [['url', ...base, '--scope', 'a"b'], /RFC 6749 section 3.3/],
    [['url', ...base, '--state', ''], /--state must not be empty/],
    [['login', ...base, '--timeout', 'soon'], /--timeout must be a whole number/],
    [['exchange', ...base], /required option '--code <C>'/],
    [['exchange', ...base, '--code', 'x', '--pkce'], /give it with --code-verifier/],
    [['url', ...base, '--no-pkce', '--code-verifier', 'a'.repeat(43)], /--no-pkce cannot go with --code-verifier/],
  ])('%j', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^oauthctl: error: /);
    expect(lines[0]).toMatch(message);
  });
});

describe('mistyped commands and options: one line with the suggestion, exit 2', () => {
  it.each([
    [['profile', 'ad', 'x'], /^oauthctl: error: unknown command 'ad' \(did you mean add\?\)/],
    [['profile', 'rmove', 'x'], /^oauthctl: error: unknown command 'rmove' \(did you mean remove\?\)/],
    [['logn'], /^oauthctl: error: unknown command 'logn' \(did you mean login\?\)/],
    [['login', '--scpe', 'x'], /^oauthctl: error: unknown option '--scpe' \(did you mean --scope\?\)/],
    [['pkce', '--length', 'abc'], /^oauthctl: error: --length must be a whole number from 43 to 128 \(RFC 7636 section 4\.1\), got "abc"$/],
  ])('%j', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});
