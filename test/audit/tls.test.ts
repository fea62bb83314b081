import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport, ProbeResult } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { startWeakServer, type WeakServer, type Weaknesses } from './helpers/weak-server.js';

// A throw-away CA and a certificate it signed for 127.0.0.1, made with openssl for this run. The built
// CLI trusts the CA through NODE_EXTRA_CA_CERTS, which Node reads at start-up: those runs spawn it.
let dir: string;
let tls: { key: string; cert: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-audit-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=oauthctl audit test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=keyCertSign',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.pem'), '-days', '1', '-extfile', at('ext.cnf'));
  tls = { key: readFileSync(at('server.key'), 'utf8'), cert: readFileSync(at('server.pem'), 'utf8') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: WeakServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ARGS = ['--client-id', 'pub', '--scope', 'photo', '--redirect-uri', 'http://127.0.0.1/callback', '--username', 'u', '--password', 'p', '--only', 'tls', '--json'];

/** The tls probe's row, from the built CLI trusting the test CA. */
async function auditTrusting(weak: Weaknesses): Promise<ProbeResult | undefined> {
  server = await startWeakServer(weak);
  const child = spawn(process.execPath, ['bin/oauthctl.js', 'audit', '--auth-url', server.url, ...ARGS], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return (JSON.parse(out) as AuditReport).probes.find((p) => p.id === 'tls');
}

/** Whether this machine's OpenSSL can still make a TLS 1.1 handshake (Debian's lowers it only at security level 0). */
function legacyHandshake(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0', rejectUnauthorized: false }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('tls probe against an https server (built CLI)', () => {
  it('passes with TLS 1.2+, a certificate from a trusted CA and HSTS', async () => {
    const row = await auditTrusting({ tls });
    expect(row?.status).toBe('pass');
    expect(row?.detail).toMatch(/^TLSv1\.3, certificate valid, Strict-Transport-Security: max-age=31536000; TLS 1\.0\/1\.1 refused$/);
  });

  it('warns without Strict-Transport-Security on the authorization endpoint', async () => {
    const row = await auditTrusting({ tls, noHsts: true });
    expect(row?.status).toBe('warn');
    expect(row?.detail).toMatch(/^TLSv1\.3, certificate valid, but the authorization endpoint sends no Strict-Transport-Security; TLS 1\.0\/1\.1 refused$/);
  });

  it('fails when the server still accepts TLS 1.1 (or says it could not try, where OpenSSL refuses old TLS)', async () => {
    const row = await auditTrusting({ tls: { ...tls, legacy: true } });
    if (await legacyHandshake(server!.url)) {
      expect(row?.status).toBe('fail');
      expect(row?.detail).toMatch(/^accepts TLSv1\.1 \(RFC 8996: TLS 1\.0 and 1\.1 MUST NOT be used\)$/);
    } else {
      expect(row?.detail).toMatch(/TLS 1\.0\/1\.1 not tried: this OpenSSL cannot offer them/);
    }
  });
});

describe('tls probe, in-process', () => {
  it('fails on a certificate no trusted CA signed (the audit itself runs with --insecure)', async () => {
    server = await startWeakServer({ tls });
    const io = memoryIO();
    const code = await run(['audit', '--auth-url', server.url, ...ARGS, '--insecure'], io);
    const row = (JSON.parse(io.out()) as AuditReport).probes.find((p) => p.id === 'tls');
    expect(row?.status).toBe('fail');
    expect(row?.detail).toMatch(/^the certificate is not valid for 127\.0\.0\.1: UNABLE_TO_VERIFY_LEAF_SIGNATURE; TLS 1\.0\/1\.1 refused$/);
    expect(code).toBe(1);
  });
});
