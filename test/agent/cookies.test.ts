import { describe, expect, it } from 'vitest';
import { CookieJar, domainMatches, parseSetCookie, pathMatches } from '../../src/agent/headless/cookies.js';

describe('cookie jar (RFC 6265)', () => {
  it('sends a host-only cookie back to the same host only', () => {
    const jar = new CookieJar();
    jar.setCookies(['sid=abc; HttpOnly; SameSite=Lax'], 'http://id.example.com/login');
    expect(jar.cookieHeader('http://id.example.com/consent')).toBe('sid=abc');
    expect(jar.cookieHeader('http://sub.id.example.com/consent')).toBeUndefined();
    expect(jar.cookieHeader('http://other.example.com/')).toBeUndefined();
  });

  it('honours Domain for subdomains and refuses a foreign Domain', () => {
    const jar = new CookieJar();
    jar.setCookies(['a=1; Domain=.example.com', 'b=2; Domain=evil.test'], 'https://id.example.com/');
    expect(jar.cookieHeader('https://login.example.com/')).toBe('a=1');
    expect(jar.list().map((c) => c.name)).toEqual(['a']);
  });

  it('scopes by Path, longest path first, and uses the default path of the request', () => {
    const jar = new CookieJar();
    jar.setCookies(['root=r; Path=/', 'app=a; Path=/app', 'dflt=d'], 'http://h/app/login');
    expect(jar.cookieHeader('http://h/app/consent')).toBe('app=a; dflt=d; root=r');
    expect(jar.cookieHeader('http://h/application')).toBe('root=r');
    expect(jar.cookieHeader('http://h/')).toBe('root=r');
  });

  it('sends Secure cookies only over https', () => {
    const jar = new CookieJar();
    jar.setCookies(['s=1; Secure', 'p=2'], 'https://h/');
    expect(jar.cookieHeader('https://h/')).toBe('s=1; p=2');
    expect(jar.cookieHeader('http://h/')).toBe('p=2');
  });

  it('expires cookies by Max-Age (which wins over Expires) and Expires, and deletes with Max-Age=0', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const jar = new CookieJar(() => now);
    jar.setCookies(['a=1; Max-Age=60; Expires=Thu, 01 Jan 2000 00:00:00 GMT', 'b=2; Expires=Tue, 01 Jan 2030 00:00:30 GMT'], 'http://h/');
    expect(jar.cookieHeader('http://h/')).toBe('a=1; b=2');
    now += 45_000;
    expect(jar.cookieHeader('http://h/')).toBe('a=1');
    jar.setCookies(['a=gone; Max-Age=0'], 'http://h/');
    expect(jar.cookieHeader('http://h/')).toBeUndefined();
  });

  it('replaces a cookie of the same name, domain and path', () => {
    const jar = new CookieJar();
    jar.setCookies(['sid=1'], 'http://h/');
    jar.setCookies(['sid=2'], 'http://h/');
    expect(jar.cookieHeader('http://h/')).toBe('sid=2');
  });

  it('ignores malformed headers and matches IP hosts exactly', () => {
    expect(parseSetCookie('no-equals-sign', new URL('http://h/'), 0)).toBeUndefined();
    expect(parseSetCookie('=value', new URL('http://h/'), 0)).toBeUndefined();
    expect(domainMatches('127.0.0.1', '0.0.1')).toBe(false);
    expect(domainMatches('a.b.example', 'example')).toBe(true);
    expect(pathMatches('/app/x', '/app')).toBe(true);
    expect(pathMatches('/apple', '/app')).toBe(false);
    const jar = new CookieJar();
    jar.setCookies(['x=1'], 'http://[::1]:8080/');
    expect(jar.cookieHeader('http://[::1]:9090/')).toBe('x=1');
  });
});
