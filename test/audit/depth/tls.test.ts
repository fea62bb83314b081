import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSelfSigned } from '../../helpers/certificates.js';
import { auditJson } from './helpers.js';

// A self-signed certificate for 127.0.0.1 (the audit runs with --insecure; the tls probe judges the certificate, not these).
let dir: string;
let tls: { key: string; cert: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-audit-depth-tls-'));
  const made = makeSelfSigned(dir, 'server', { key: 'rsa' });
  tls = { key: readFileSync(made.keyFile, 'utf8'), cert: readFileSync(made.certFile, 'utf8') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Only ECDHE key exchange in TLS 1.2 (and TLS 1.3): forward secrecy. */
const FORWARD_SECRET = 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384';

/** A login page over https with the headers given: all the TLS probes look at. */
async function withLoginPage(headers: Record<string, string>, options: ServerOptions, test: (url: string) => Promise<void>, errorPageHeaders = headers): Promise<void> {
  const server = createServer({ ...tls, ...options }, (req, res) => {
    // The audit's own client is "c"; any other is refused with an error page.
    const known = new URL(req.url ?? '/', 'https://127.0.0.1').searchParams.get('client_id') === 'c';
    res.writeHead(known ? 200 : 400, { 'content-type': 'text/html', ...(known ? headers : errorPageHeaders) });
    res.end('<!doctype html><title>Sign in</title><form method="post"><input name="username"></form>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await test(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const PROBES = 'tls-hsts-max-age,tls-hsts-all-pages,tls-cookie-secure,tls-1-3,tls-forward-secrecy';
const audit = (url: string) => auditJson(url, '--insecure', '--client-id', 'c', '--pkce', '--scope', 'photo', '--only', PROBES);
const GOOD = { 'strict-transport-security': 'max-age=31536000; includeSubDomains', 'set-cookie': 'sid=1; Path=/; Secure; HttpOnly; SameSite=Lax' };

describe('TLS: HSTS lifetime and coverage, cookies, TLS 1.3, forward secrecy', () => {
  it('a well-configured https server passes them all', async () => {
    await withLoginPage(GOOD, { ciphers: FORWARD_SECRET }, async (url) => {
      const { byId } = await audit(url);
      expect(Object.fromEntries(Object.entries(byId).map(([id, r]) => [id, r.status]))).toEqual({
        'tls-hsts-max-age': 'pass',
        'tls-hsts-all-pages': 'pass',
        'tls-cookie-secure': 'pass',
        'tls-1-3': 'pass',
        'tls-forward-secrecy': 'pass',
      });
    });
  });

  it('each weakness is caught: a short HSTS, none on the error page, a cookie without Secure, no TLS 1.3, RSA key transport', async () => {
    const weak = { 'strict-transport-security': 'max-age=300', 'set-cookie': 'sid=1; Path=/; HttpOnly' };
    await withLoginPage(
      weak,
      { maxVersion: 'TLSv1.2' },
      async (url) => {
        const { byId } = await audit(url);
        expect(byId['tls-hsts-all-pages']).toEqual({ status: 'warn', detail: 'no Strict-Transport-Security on the error page (HTTP 400)' });
        expect(byId['tls-1-3']?.status).toBe('warn');
        expect(byId['tls-hsts-max-age']).toEqual({ status: 'warn', detail: 'Strict-Transport-Security: max-age=300 (max-age under a year)' });
        expect(byId['tls-cookie-secure']).toEqual({ status: 'fail', detail: 'without Secure: sid' });
        expect(byId['tls-forward-secrecy']?.status).toBe('warn');
        expect(byId['tls-forward-secrecy']?.detail).toMatch(/^a TLSv1\.2 handshake with RSA key transport only succeeded/);
      },
      {},
    );
  });

  it('a cookie without HttpOnly is a warning', async () => {
    await withLoginPage({ ...GOOD, 'set-cookie': 'sid=1; Path=/; Secure' }, { ciphers: FORWARD_SECRET }, async (url) => {
      expect((await audit(url)).byId['tls-cookie-secure']).toEqual({ status: 'warn', detail: 'without HttpOnly: sid' });
    });
  });

  it('over http the three skip, and the report says so', async () => {
    const { createMockServer } = await import('../../../src/mock/index.js');
    const mock = await createMockServer({});
    try {
      const { report } = await auditJson(mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--only', PROBES);
      expect(report.summary.not_tested).toEqual([{ what: PROBES.split(',').join(', '), why: 'the authorization endpoint is not https' }]);
    } finally {
      await mock.close();
    }
  });
});
