import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwtUnverified } from '../../../src/oauth/jwt.js';
import { createMockServer, loadMockConfig, type MockConfigInput, type MockRequest, type MockServer, type MockServerOptions } from '../../../src/mock/index.js';
import { homeEnv, ROOT, runCli, type CliResult } from '../../helpers/cli.js';

/** The public key and certificate of fixtures/mock/modern.jsonc's clients. */
export const FIXTURE_KEY = join(ROOT, 'fixtures', 'mock', 'photo-jwt.key.pem');
export const FIXTURE_CERT = join(ROOT, 'fixtures', 'mock', 'photo-self.cert.pem');
export const FIXTURE_KID = '6P5OuebGe8-zRGwdGQff_RDcHsSpKoPsdF5dwzCjdqE';
export const CSJWT_SECRET = 'photo-csjwt-secret-of-32-bytes-or-more';
export const HEADLESS = ['--headless', '--username', 'alice', '--password', 'wonderland', '--timeout', '20'];

/** The mock of fixtures/mock/modern.jsonc on 127.0.0.1:0, with `extra` merged into its configuration. */
export async function startModernMock(options: MockServerOptions = {}, extra: (config: MockConfigInput) => MockConfigInput = (c) => c): Promise<MockServer> {
  const config = await loadMockConfig(join(ROOT, 'fixtures', 'mock', 'modern.jsonc'));
  return createMockServer(extra(config), options);
}

/** A temporary HOME for the spawned CLI (its token cache), and the CLI run in it. */
export interface CliHome {
  dir: string;
  run(args: readonly string[], env?: Record<string, string>): Promise<CliResult>;
  remove(): void;
}

export function cliHome(): CliHome {
  const dir = mkdtempSync(join(tmpdir(), 'oauthctl-modern-mock-'));
  return {
    dir,
    run: (args, env = {}) => runCli(args, { env: { ...homeEnv(dir), ...env } }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The requests the mock logged at `path` (oldest first). */
export const requestsAt = (mock: MockServer, path: string): MockRequest[] => mock.requests().filter((r) => r.path === path);

/** One value of a logged form or query parameter. */
export function param(values: Record<string, string | string[]> | undefined, name: string): string | undefined {
  const v = values?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A header of a logged request. */
export function header(r: MockRequest, name: string): string | undefined {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Header and claims of a JWT, or a thrown error naming what was not one. */
export function jwt(token: string | undefined): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const decoded = decodeJwtUnverified(token ?? '');
  if (!decoded) throw new Error(`not a JWT: ${token}`);
  return { header: decoded.header as Record<string, unknown>, claims: decoded.claims };
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
/** cnf.x5t#S256 of a certificate (RFC 8705 section 3.1). */
export const x5t = (certPem: string) => createHash('sha256').update(new X509Certificate(certPem).raw).digest('base64url');

export { makeClientCa, type ClientCa } from '../../helpers/certificates.js';

export const readText = (file: string) => readFileSync(file, 'utf8');
