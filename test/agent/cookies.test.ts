import { describe, expect, it } from 'vitest';
import { CookieJar } from '../../src/agent/headless/cookies.js';

describe('cookie jar (RFC 6265, tough-cookie)', () => {
  it('sends a host-only cookie back to the same host only', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['sid=abc; HttpOnly; SameSite=Lax'], 'http://id.example.com/login');
    expect(await jar.cookieHeader('http://id.example.com/consent')).toBe('sid=abc');
    expect(await jar.cookieHeader('http://sub.id.example.com/consent')).toBeUndefined();
    expect(await jar.cookieHeader('http://other.example.com/')).toBeUndefined();
  });

  it('honours Domain for subdomains and refuses a foreign Domain', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['a=1; Domain=.example.com', 'b=2; Domain=evil.test'], 'https://id.example.com/');
    expect(await jar.cookieHeader('https://login.example.com/')).toBe('a=1');
    expect(await jar.cookieHeader('https://evil.test/')).toBeUndefined();
  });

  it('refuses a cookie for a public suffix (Domain=com, Domain=co.uk): the public suffix list', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['wide=1; Domain=com', 'uk=1; Domain=co.uk', 'mine=1; Domain=example.co.uk'], 'https://id.example.co.uk/');
    await jar.setCookies(['wide=1; Domain=com'], 'https://id.example.com/');
    expect(await jar.cookieHeader('https://other.com/')).toBeUndefined();
    expect(await jar.cookieHeader('https://other.co.uk/')).toBeUndefined();
    expect(await jar.cookieHeader('https://www.example.co.uk/')).toBe('mine=1');
  });

  it('scopes by Path, longest path first, and uses the default path of the request', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['root=r; Path=/', 'app=a; Path=/app', 'dflt=d'], 'http://h.example/app/login');
    expect(await jar.cookieHeader('http://h.example/app/consent')).toBe('app=a; dflt=d; root=r');
    expect(await jar.cookieHeader('http://h.example/application')).toBe('root=r');
    expect(await jar.cookieHeader('http://h.example/')).toBe('root=r');
  });

  it('sends Secure cookies only over https', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['s=1; Secure', 'p=2'], 'https://h.example/');
    expect(await jar.cookieHeader('https://h.example/')).toBe('s=1; p=2');
    expect(await jar.cookieHeader('http://h.example/')).toBe('p=2');
  });

  it('drops expired cookies and deletes with Max-Age=0; replaces a cookie of the same name, domain and path', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['old=1; Expires=Thu, 01 Jan 2000 00:00:00 GMT', 'a=1; Max-Age=60', 'sid=1'], 'http://h.example/');
    await jar.setCookies(['sid=2'], 'http://h.example/');
    expect(await jar.cookieHeader('http://h.example/')).toBe('a=1; sid=2');
    await jar.setCookies(['a=gone; Max-Age=0'], 'http://h.example/');
    expect(await jar.cookieHeader('http://h.example/')).toBe('sid=2');
  });

  it('ignores malformed headers and keeps loopback cookies to their host', async () => {
    const jar = new CookieJar();
    await jar.setCookies(['no-equals-sign-but-not-empty;;', '=value'], 'http://127.0.0.1:8080/');
    await jar.setCookies(['x=1'], 'http://127.0.0.1:8080/');
    expect(await jar.cookieHeader('http://127.0.0.1:9090/')).toContain('x=1');
    expect(await jar.cookieHeader('http://127.0.0.2/')).toBeUndefined();
  });
});
