import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSelfSigned } from '../../helpers/certificates.js';
import { runCli } from '../../helpers/cli.js';

// A throw-away self-signed certificate for 127.0.0.1, made with openssl for this run.
let dir: string;
let server: Server;
let tokenEndpoint: string;
let haveOpenssl = true;
let certFile: string;
let keyFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-tls-'));
  try {
    ({ certFile, keyFile } = makeSelfSigned(dir, 'server', { key: 'rsa' }));
  } catch {
    haveOpenssl = false;
    return;
  }
  server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"at-tls","token_type":"Bearer"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tokenEndpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  if (server)
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  rmSync(dir, { recursive: true, force: true });
});

const refresh = (extra: string[] = []) => ['refresh', '--refresh-token', 'r', '--token-endpoint', tokenEndpoint, '--client-id', 'c', '--json', ...extra];

describe('TLS', () => {
  it('refuses an untrusted certificate with one line and a hint', async ({ skip }) => {
    if (!haveOpenssl) skip();
    const r = await runCli(refresh());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: TLS certificate of https:\/\/127\.0\.0\.1:\d+\/token not trusted.*NODE_EXTRA_CA_CERTS/);
  });

  it('a certificate for another name says so, and does not send the user to add a CA', async ({ skip }) => {
    if (!haveOpenssl) skip();
    const byName = tokenEndpoint.replace('127.0.0.1', 'localhost');
    const r = await runCli(['refresh', '--refresh-token', 'r', '--token-endpoint', byName, '--client-id', 'c', '--json'], { env: { NODE_EXTRA_CA_CERTS: certFile } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toMatch(
      /^oauthctl: error: the TLS certificate of https:\/\/localhost:\d+\/token is for another name: .*\(use the host name the certificate was issued for \(not localhost\); adding a CA does not help\)$/,
    );
    expect(r.stderr).not.toMatch(/NODE_EXTRA_CA_CERTS/);
  });

  it('trusts a CA from NODE_EXTRA_CA_CERTS', async ({ skip }) => {
    if (!haveOpenssl) skip();
    const r = await runCli(refresh(), { env: { NODE_EXTRA_CA_CERTS: certFile } });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).access_token).toBe('at-tls');
  });

  it('--insecure skips verification with a loud warning', async ({ skip }) => {
    if (!haveOpenssl) skip();
    const r = await runCli(refresh(['--insecure']));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: --insecure: TLS certificates are NOT verified/);
    expect(JSON.parse(r.stdout).access_token).toBe('at-tls');
  });
});
