// `--trace FILE` on every command that talks to a server writes a HAR 1.2 file (checked
// against the HAR 1.2 JSON schema), 0600, also when the command fails, with no secret of the flow in it
// unless --show-secrets. The mock runs in-process, the commands too, over real HTTP on loopback.
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { FAKE_BROWSER, homeEnv } from '../../helpers/cli.js';
import { runCli } from '../../daily/helpers/io.js';

const require = createRequire(import.meta.url);
// CommonJS packages with a default export, read through ESM: the class and the plugin are `.default`.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;
const harSchemas = require('har-schema') as Record<string, object>;
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
addFormats(ajv);
for (const [name, schema] of Object.entries(harSchemas)) if (name !== 'har') ajv.addSchema(schema);
const validateHar = ajv.compile(harSchemas.har!);

interface Har {
  log: { entries: { request: { method: string; url: string }; response: { status: number }; _oauthctl: { actor: string; step: string } }[] };
}

let mock: MockServer;
let home: string;
let env: Record<string, string>;
/** Every secret value the flows of this file used: found in the mock's request log and in the commands' output. */
const secrets = new Set<string>(['photo-web-secret', 'photo-service-secret', 'wonderland']);

const SECRET_FIELDS = new Set([
  'code',
  'code_verifier',
  'client_secret',
  'refresh_token',
  'access_token',
  'id_token',
  'token',
  'subject_token',
  'actor_token',
  'client_assertion',
  'assertion',
  'password',
  'device_code',
]);

function collectSecretsFromMock(): void {
  for (const r of mock.requests()) {
    for (const params of [r.query, r.form ?? {}]) {
      for (const [k, v] of Object.entries(params)) if (SECRET_FIELDS.has(k)) for (const value of [v].flat()) secrets.add(value);
    }
    for (const [name, value] of Object.entries(r.headers)) {
      for (const v of [value].flat()) {
        if (name === 'authorization') secrets.add(v.replace(/^\w+\s+/, ''));
        if (name === 'dpop') secrets.add(v);
        if (name === 'cookie') for (const pair of v.split(/;\s*/)) secrets.add(pair.slice(pair.indexOf('=') + 1));
      }
    }
  }
}

function collectSecretsFromJson(stdout: string): void {
  try {
    const body = JSON.parse(stdout) as Record<string, unknown>;
    for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof body[k] === 'string') secrets.add(body[k] as string);
  } catch {
    // not a token response
  }
}

const traces: { name: string; file: string }[] = [];

/** Runs a command with --trace into a new file; checks the file is a valid HAR, 0600. */
async function traced(name: string, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string; har: Har; file: string }> {
  const file = join(home, `${name}.har`);
  // Before a `--` that ends the options (a token may begin with a dash), else at the end.
  const end = args.indexOf('--');
  const withTrace = end < 0 ? [...args, '--trace', file] : [...args.slice(0, end), '--trace', file, ...args.slice(end)];
  const r = await runCli(withTrace, { ...env, ...extraEnv });
  collectSecretsFromJson(r.stdout);
  collectSecretsFromMock();
  expect(existsSync(file), `${name}: ${r.stderr}`).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const har = JSON.parse(readFileSync(file, 'utf8')) as Har;
  expect(validateHar(har), `${name}: ${JSON.stringify(validateHar.errors)}`).toBe(true);
  traces.push({ name, file });
  return { ...r, har, file };
}

const steps = (har: Har) => har.log.entries.map((e) => `${e._oauthctl.actor} ${e._oauthctl.step}`);
const WEB = () => ['--issuer', mock.issuer, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret'];
const SERVICE = () => ['--auth-url', mock.authUrl, '--client-id', 'photo-service', '--client-secret', 'photo-service-secret'];
const HEADLESS = ['--headless', '--username', 'alice', '--password', 'wonderland'];

beforeAll(async () => {
  mock = await createMockServer({ device_interval: 1 });
  home = mkdtempSync(join(tmpdir(), 'oauthctl-trace-'));
  env = homeEnv(home);
});
afterAll(async () => {
  await mock?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('--trace FILE records every exchange as HAR 1.2', () => {
  let tokens: Record<string, string>;

  it('login --headless: discovery, the agent at the authorization server, the listener, the token request, in order', async () => {
    const r = await traced('login-headless', ['login', ...WEB(), '--scope', 'openid photo offline_access', ...HEADLESS, '--json']);
    expect(r.code).toBe(0);
    tokens = JSON.parse(r.stdout) as Record<string, string>;
    expect(steps(r.har)).toEqual([
      'client discovery',
      'client authorization',
      'user-agent authorization',
      'user-agent login',
      'user-agent login',
      'user-agent login',
      'user-agent callback',
      'listener callback',
      'client token',
      'client jwks',
    ]);
    const started = r.har.log.entries.map((e) => Date.parse((e as unknown as { startedDateTime: string }).startedDateTime));
    expect([...started].sort((a, b) => a - b)).toEqual(started);
  });

  it('login through the system browser: what the listener saw', async () => {
    // The fake browser follows redirects only: this mock signs alice in by itself.
    const auto = await createMockServer({}, { autoLogin: 'alice' });
    try {
      const r = await traced('login-browser', ['login', '--auth-url', auto.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--json'], { BROWSER: FAKE_BROWSER });
      expect(r.code, r.stderr).toBe(0);
      expect(steps(r.har)).toEqual(['client authorization', 'listener callback', 'client token']);
      // The authorization request as the client sent the browser off with it: what --check reads.
      const check = await runCli(['trace', r.file, '--check', '--json'], env);
      expect(check.code, check.stdout).toBe(0);
    } finally {
      await auto.close();
    }
  }, 30_000);

  it('login --device --headless, and login --dpop', async () => {
    const device = await traced('login-device', ['login', '--device', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', ...HEADLESS]);
    expect(device.code, device.stderr).toBe(0);
    expect(steps(device.har)).toContain('client device-authorization');
    const dpop = await traced('login-dpop', ['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--dpop', ...HEADLESS, '--json']);
    expect(dpop.code, dpop.stderr).toBe(0);
  }, 30_000);

  it('refresh, userinfo, introspect, call, revoke, logout', async () => {
    const refreshed = await traced('refresh', ['refresh', ...WEB(), '--refresh-token', tokens.refresh_token!, '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const userinfo = await traced('userinfo', ['userinfo', '--issuer', mock.issuer, '--client-id', 'photo-web']);
    expect(userinfo.code, userinfo.stderr).toBe(0);
    expect(steps(userinfo.har)).toContain('client userinfo');
    expect((await traced('introspect', ['introspect', ...SERVICE(), '--', tokens.access_token!])).code).toBe(0);
    const call = await traced('call', ['call', `${mock.authUrl}/api/photos`, '--issuer', mock.issuer, '--client-id', 'photo-web']);
    expect(call.code, call.stderr).toBe(0);
    expect(steps(call.har)).toContain('client resource');
    expect((await traced('revoke', ['revoke', ...SERVICE(), '--', tokens.refresh_token!])).code).toBe(0);
    const logout = await traced('logout', ['logout', '--issuer', mock.issuer, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret']);
    expect(logout.code, logout.stderr).toBe(0);
    expect(steps(logout.har)).toContain('client revocation');
  }, 30_000);

  it('exchange, client-credentials and token-exchange', async () => {
    const cc = await traced('client-credentials', ['client-credentials', ...SERVICE(), '--scope', 'photo', '--json']);
    expect(cc.code).toBe(0);
    expect(steps(cc.har)).toContain('client client-credentials');
    const subject = (JSON.parse(cc.stdout) as { access_token: string }).access_token;
    const te = await traced('token-exchange', ['token-exchange', ...SERVICE(), '--subject-token', subject, '--json']);
    expect(te.code, te.stderr).toBe(0);
    expect(steps(te.har)).toContain('client token-exchange');
    // A code that is no good: the command fails, and the trace is written all the same.
    const exchange = await traced('exchange-fails', ['exchange', ...WEB(), '--code', 'not-a-real-code-123', '--redirect-uri', 'http://127.0.0.1:8765/callback']);
    expect(exchange.code).toBe(1);
    expect(exchange.har.log.entries.at(-1)!.response.status).toBe(400);
  }, 30_000);

  it('audit', async () => {
    const r = await traced('audit', [
      'audit',
      '--auth-url',
      mock.authUrl,
      '--client-id',
      'photo-cli',
      '--scope',
      'photo',
      '--username',
      'alice',
      '--password',
      'wonderland',
      '--only',
      'flow,state',
      '--json',
    ]);
    expect(r.code, r.stdout).toBe(0);
    // The audit drives the pages with its own client (it plays both sides), so its requests are the client's.
    expect(steps(r.har)).toEqual(expect.arrayContaining(['client discovery', 'client authorization', 'client token']));
  }, 60_000);

  it('a server that is down: the failure is in the trace (status 0, the error), and the command fails as before', async () => {
    const down = await createMockServer({});
    const url = down.authUrl;
    await down.close();
    const r = await traced('down', ['client-credentials', '--auth-url', url, '--client-id', 'c', '--client-secret', 'not-the-secret-1']);
    expect(r.code).toBe(1);
    const [entry] = r.har.log.entries as unknown as { response: { status: number; _error: string } }[];
    expect(entry!.response.status).toBe(0);
    expect(entry!.response._error).toMatch(/connection refused/);
  });

  it('no secret of any flow above is in any trace made without --show-secrets', () => {
    expect(traces.length).toBeGreaterThanOrEqual(13);
    const found: string[] = [];
    const worthLooking = [...secrets].filter((s) => s.length >= 8);
    expect(worthLooking.length).toBeGreaterThan(20);
    for (const { name, file } of traces) {
      const text = readFileSync(file, 'utf8');
      for (const s of worthLooking) {
        for (const form of new Set([s, encodeURIComponent(s), new URLSearchParams({ v: s }).toString().slice(2)])) if (text.includes(form)) found.push(`${name}: ${s.slice(0, 12)}…`);
      }
    }
    expect(found).toEqual([]);
  });

  it('--show-secrets keeps them, and says so in the file', async () => {
    const r = await traced('shown', ['client-credentials', ...SERVICE(), '--scope', 'photo', '--json', '--show-secrets']);
    const token = (JSON.parse(r.stdout) as { access_token: string }).access_token;
    const text = readFileSync(r.file, 'utf8');
    expect(text).toContain(token);
    expect(text).toContain('"redacted": false');
    traces.pop();
  });

  it('a trace file that cannot be written: one line, exit 2, and the command still ran', async () => {
    const r = await runCli(['client-credentials', ...SERVICE(), '--scope', 'photo', '--trace', join(home, 'login-headless.har', 'x.har')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^oauthctl: error: cannot write the trace to /m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
