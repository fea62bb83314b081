import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sameDistinguishedName } from '../../src/mock/core/clients/mtls.js';
import { ReplayCache } from '../../src/mock/core/store/replay.js';
import { sameHtu } from '../../src/oauth/dpop.js';

describe('ReplayCache: bounded, and never forgets a live jti', () => {
  it('refuses a replay until expiry, then accepts the value again', () => {
    let now = 1000;
    const cache = new ReplayCache(10, () => now);
    expect(cache.use('a', 2000)).toBe('fresh');
    expect(cache.use('a', 2000)).toBe('replayed');
    now = 2000;
    expect(cache.use('a', 3000)).toBe('fresh');
  });

  it('when full of live values refuses new ones (busy) rather than evicting one that could then be replayed', () => {
    let now = 0;
    const cache = new ReplayCache(3, () => now);
    for (const jti of ['a', 'b', 'c']) expect(cache.use(jti, 100)).toBe('fresh');
    expect(cache.use('d', 100)).toBe('busy');
    expect(cache.use('a', 100)).toBe('replayed');
    now = 100;
    expect(cache.use('d', 200)).toBe('fresh');
    expect(cache.size).toBe(1);
  });
});

describe('sameDistinguishedName (tls_client_auth_subject_dn)', () => {
  it.each([
    ['CN=photo-mtls\nO=Example', 'CN=photo-mtls,O=Example', true],
    ['O=Example\nCN=photo-mtls', 'cn=photo-mtls, o=Example', true],
    ['CN=a,b\nO=Example', 'CN=a\\,b,O=Example', true],
    ['CN=photo-mtls\nO=Example', 'CN=photo-mtls', false],
    ['CN=photo-mtls\nO=Example', 'CN=Photo-mtls,O=Example', false],
    ['CN=photo-mtls\nO=Example', 'CN=photo-mtls,O=Example,OU=x', false],
  ])('%j vs %j -> %s', (subject, configured, same) => {
    expect(sameDistinguishedName(subject, configured)).toBe(same);
  });
});

describe('sameHtu (RFC 9449 section 4.3)', () => {
  it.each([
    ['https://as.example/token', 'https://as.example/token', true],
    ['HTTPS://AS.example:443/token?x=1#y', 'https://as.example/token', true],
    ['https://as.example/token/', 'https://as.example/token', false],
    ['http://as.example/token', 'https://as.example/token', false],
    ['https://as.example:8443/token', 'https://as.example/token', false],
    ['not a url', 'https://as.example/token', false],
  ])('%j vs %j -> %s', (htu, expected, same) => {
    expect(sameHtu(htu, expected)).toBe(same);
  });
});

describe('serve-mock --tls without openssl', () => {
  it('says so in one line and exits 2', () => {
    const r = spawnSync(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--tls', '--port', '0'], { env: { ...process.env, PATH: '/nonexistent' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/openssl/);
    expect(r.stderr).not.toMatch(/\n {4}at /);
  });
});
