import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../src/oauth/errors.js';
import { buildTokenRequest, clientSecretBasic, formUrlEncode, parseTokenResponse, TokenResponseError } from '../../src/oauth/token-request.js';

const grant = { grant_type: 'authorization_code', code: 'abc', redirect_uri: 'http://127.0.0.1:1/cb', code_verifier: undefined };

describe('client_secret_basic (RFC 6749 section 2.3.1)', () => {
  it('form-encodes id and secret before base64', () => {
    const header = clientSecretBasic('my client:1', 'p@ss word:+&%');
    const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString();
    expect(decoded).toBe('my+client%3A1:p%40ss+word%3A%2B%26%25');
  });
  it('matches plain Basic for simple values (RFC 6749 section 2.3.1 example)', () => {
    expect(clientSecretBasic('s6BhdRkqt3', '7Fjfp0ZBr1KtDRbnfVdmIw')).toBe('Basic czZCaGRSa3F0Mzo3RmpmcDBaQnIxS3REUmJuZlZkbUl3');
  });
  it('formUrlEncode writes a space as +', () => {
    expect(formUrlEncode('a b~*')).toBe('a+b%7E*');
    expect(decodeURIComponent(formUrlEncode('a b~*:%').replace(/\+/g, ' '))).toBe('a b~*:%');
  });
});

describe('buildTokenRequest', () => {
  it('client_secret_basic: Authorization header, no client_id or secret in the body', () => {
    const req = buildTokenRequest('https://as/token', { clientId: 'c', clientSecret: 's', authMethod: 'client_secret_basic' }, grant);
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('c:s').toString('base64')}`);
    const body = new URLSearchParams(req.body);
    expect(body.has('client_id')).toBe(false);
    expect(body.has('client_secret')).toBe(false);
    expect(body.get('grant_type')).toBe('authorization_code');
    expect(body.get('code')).toBe('abc');
    expect(body.get('redirect_uri')).toBe('http://127.0.0.1:1/cb');
    expect(body.has('code_verifier')).toBe(false);
  });
  it('client_secret_post: client_id and client_secret in the body', () => {
    const req = buildTokenRequest('https://as/token', { clientId: 'c 1', clientSecret: 's&2', authMethod: 'client_secret_post' }, grant);
    expect(req.headers.authorization).toBeUndefined();
    const body = new URLSearchParams(req.body);
    expect(body.get('client_id')).toBe('c 1');
    expect(body.get('client_secret')).toBe('s&2');
  });
  it('none: client_id in the body, no secret anywhere, code_verifier sent', () => {
    const req = buildTokenRequest('https://as/token', { clientId: 'c', authMethod: 'none' }, { ...grant, code_verifier: 'v'.repeat(43) });
    expect(req.headers.authorization).toBeUndefined();
    const body = new URLSearchParams(req.body);
    expect(body.get('client_id')).toBe('c');
    expect(body.has('client_secret')).toBe(false);
    expect(body.get('code_verifier')).toBe('v'.repeat(43));
  });
  it('refuses a secret-based method without a secret', () => {
    expect(() => buildTokenRequest('https://as/token', { clientId: 'c', authMethod: 'client_secret_post' }, grant)).toThrow(/needs a client secret/);
  });
});

describe('parseTokenResponse', () => {
  it('returns the object exactly as received', () => {
    const body = { access_token: 'at', token_type: 'Bearer', expires_in: 60, extra: { a: 1 } };
    expect(parseTokenResponse(200, 'application/json', JSON.stringify(body))).toEqual(body);
  });
  it('turns an RFC 6749 section 5.2 error into OAuthError, keeping the status', () => {
    try {
      parseTokenResponse(400, 'application/json', '{"error":"invalid_grant","error_description":"code expired"}');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(OAuthError);
      expect((err as OAuthError).message).toBe('invalid_grant: code expired');
      expect((err as OAuthError).status).toBe(400);
    }
  });
  it.each([
    [500, 'text/html', '<h1>Internal error</h1>', /failed with HTTP 500/],
    [200, 'text/html', '<html>login</html>', /not JSON \(text\/html\)/],
    [200, 'application/json', '[]', /not an object/],
    [200, 'application/json', '{"token_type":"Bearer"}', /no access_token/],
    [404, 'application/json', '{"message":"nope"}', /HTTP 404 without an RFC 6749 error/],
    [502, undefined, '', /HTTP 502: empty body/],
  ])('explains HTTP %i %s in one line', (status, type, body, message) => {
    try {
      parseTokenResponse(status, type, body);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(TokenResponseError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
    }
  });
});
