import { describe, expect, it } from 'vitest';
import { parseFlowOptions, DEFAULT_REDIRECT_URI } from '../../../src/cli/options/flow-options.js';
import { calculateCodeChallenge } from '../../../src/oauth/pkce.js';
import { UsageError } from '../../../src/errors.js';

describe('parseFlowOptions', () => {
  it('derives both endpoints from --auth-url, trailing slash or not', () => {
    for (const authUrl of ['https://as.example', 'https://as.example/']) {
      const p = parseFlowOptions({ authUrl, clientId: 'c' });
      expect(p.authorizationEndpoint).toBe('https://as.example/authorize');
      expect(p.tokenEndpoint).toBe('https://as.example/token');
      expect(p.discover).toBe(false);
    }
  });
  it('discovers only when --issuer is given and an endpoint is missing', () => {
    expect(parseFlowOptions({ issuer: 'https://as', clientId: 'c' }).discover).toBe(true);
    expect(parseFlowOptions({ issuer: 'https://as', authUrl: 'https://as', clientId: 'c' }).discover).toBe(false);
    expect(parseFlowOptions({ issuer: 'https://as', tokenEndpoint: 'https://as/t', clientId: 'c' }).discover).toBe(true);
  });
  it('defaults: none without a secret, client_secret_basic with one, the loopback redirect URI, fresh state', () => {
    const pub = parseFlowOptions({ authUrl: 'https://as', clientId: 'c' });
    expect(pub.authMethod).toBe('none');
    expect(pub.clientSecret).toBeUndefined();
    expect(pub.redirectUri).toBe(DEFAULT_REDIRECT_URI);
    expect(Buffer.from(pub.state, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c' }).state).not.toBe(pub.state);
    const conf = parseFlowOptions({ authUrl: 'https://as', clientId: 'c', clientSecret: 's' });
    expect(conf.authMethod).toBe('client_secret_basic');
    expect(conf.clientSecret).toBe('s');
  });
  it('takes the secret from OAUTHCTL_CLIENT_SECRET, the flag winning', () => {
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c' }, { OAUTHCTL_CLIENT_SECRET: 'e' }).clientSecret).toBe('e');
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', clientSecret: 'f' }, { OAUTHCTL_CLIENT_SECRET: 'e' }).clientSecret).toBe('f');
    // An explicit `none` ignores a secret in the environment.
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', authMethod: 'none' }, { OAUTHCTL_CLIENT_SECRET: 'e' }).clientSecret).toBeUndefined();
  });
  it('PKCE: on by default (S256, RFC 9700 section 2.1.1), --no-pkce sends none; --code-verifier and --code-challenge-method set it', () => {
    const fresh = parseFlowOptions({ authUrl: 'https://as', clientId: 'c', pkce: true }).pkce;
    expect(fresh?.codeVerifier).toHaveLength(64);
    expect(fresh?.codeChallenge).toBe(calculateCodeChallenge(fresh?.codeVerifier ?? ''));
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', codeChallengeMethod: 'plain' }).pkce?.codeChallengeMethod).toBe('plain');
    const v = 'x'.repeat(43);
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', codeVerifier: v }).pkce?.codeVerifier).toBe(v);
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c' }).pkce?.codeChallengeMethod).toBe('S256');
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', pkce: false }).pkce).toBeUndefined();
    expect(() => parseFlowOptions({ authUrl: 'https://as', clientId: 'c', pkce: false, codeVerifier: v })).toThrow(/--no-pkce cannot go with/);
  });
  it('merges repeated and plus-separated scopes; adds a nonce for openid', () => {
    const p = parseFlowOptions({ authUrl: 'https://as', clientId: 'c', scope: ['openid+photo', 'offline_access'] });
    expect(p.scopes).toEqual(['openid', 'photo', 'offline_access']);
    expect(p.extraParams.nonce).toMatch(/^[\w-]{22}$/);
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', scope: ['openid'], param: ['nonce=n1'] }).extraParams.nonce).toBe('n1');
  });
  it('keeps everything after the first = of a --param', () => {
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', param: ['claims={"a":1}', 'x=a=b', 'empty='] }).extraParams).toEqual({ claims: '{"a":1}', x: 'a=b', empty: '' });
  });
  it('allows a custom-scheme redirect URI (RFC 8252 section 7.1)', () => {
    expect(parseFlowOptions({ authUrl: 'https://as', clientId: 'c', redirectUri: 'com.example.app:/callback' }).redirectUri).toBe('com.example.app:/callback');
  });
  it('throws UsageError for bad values', () => {
    expect(() => parseFlowOptions({ clientId: 'c' })).toThrow(UsageError);
    expect(() => parseFlowOptions({ authUrl: 'https://as', clientId: 'c', authMethod: 'client_secret_magic' })).toThrow(/unknown --auth-method/);
    expect(() => parseFlowOptions({ authUrl: 'https://as', clientId: 'c', codeChallengeMethod: 'S512' })).toThrow(/S256 or plain/);
    expect(() => parseFlowOptions({ authUrl: 'https://as', clientId: 'c', param: ['=x'] })).toThrow(/name=value/);
  });
});
