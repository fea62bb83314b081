import { describe, expect, it } from 'vitest';
import { buildAuthorizationUrl } from '../../src/oauth/authorization-request.js';

const base = {
  authorizationEndpoint: 'https://as.example.com/authorize',
  clientId: 'photo cli',
  redirectUri: 'http://127.0.0.1:8765/callback',
  scopes: ['photo', 'offline_access'],
  state: 'st&te=1',
};

describe('buildAuthorizationUrl', () => {
  it('sends response_type=code, client_id, redirect_uri, space-separated scope and state, encoded', () => {
    const url = buildAuthorizationUrl(base);
    expect(url.origin + url.pathname).toBe('https://as.example.com/authorize');
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe('photo cli');
    expect(q.get('redirect_uri')).toBe('http://127.0.0.1:8765/callback');
    expect(q.get('scope')).toBe('photo offline_access');
    expect(q.get('state')).toBe('st&te=1');
    expect(q.has('code_challenge')).toBe(false);
    expect(url.search).toContain('state=st%26te%3D1');
  });
  it('adds code_challenge and code_challenge_method with PKCE', () => {
    const url = buildAuthorizationUrl({ ...base, codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', codeChallengeMethod: 'S256' });
    expect(url.searchParams.get('code_challenge')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });
  it('keeps the endpoint query and adds extra parameters without letting them override', () => {
    const url = buildAuthorizationUrl({ ...base, authorizationEndpoint: 'https://as.example.com/authorize?tenant=a', extraParams: { prompt: 'consent', state: 'evil' } });
    expect(url.searchParams.get('tenant')).toBe('a');
    expect(url.searchParams.get('prompt')).toBe('consent');
    expect(url.searchParams.getAll('state')).toEqual(['st&te=1']);
  });
  it('leaves scope out when none is asked', () => {
    expect(buildAuthorizationUrl({ ...base, scopes: [] }).searchParams.has('scope')).toBe(false);
  });
});
