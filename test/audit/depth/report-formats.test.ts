import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { run } from '../../../src/cli/program/main.js';
import { PROBES } from '../../../src/audit/probes/index.js';
import { PROBE_CATEGORIES } from '../../../src/audit/types.js';
import { loadMockConfig } from '../../../src/mock/index.js';
import { memoryIO } from '../../agent/helpers/io.js';
import { rewriteJson, startWeakenedMock, type WeakenedMock } from '../helpers/tamper-proxy.js';
import { ACCOUNT, auditJson } from './helpers.js';

let server: WeakenedMock;
let dir: string;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/depth.json'));
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-audit-reports-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const io = memoryIO();
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('audit --list', () => {
  it('--json: every probe with id, category, title, spec, threat and remedy; at least 110 of them', async () => {
    const { code, out } = await cli('audit', '--list', '--json');
    expect(code).toBe(0);
    const { probes } = JSON.parse(out) as { probes: Record<string, string>[] };
    expect(probes.length).toBeGreaterThanOrEqual(110);
    expect(probes.length).toBe(PROBES.length);
    expect(new Set(probes.map((p) => p.id)).size).toBe(probes.length);
    for (const p of probes) {
      expect(Object.keys(p).sort()).toEqual(['category', 'id', 'remedy', 'spec', 'threat', 'title']);
      expect(PROBE_CATEGORIES).toContain(p.category);
      expect(p.threat).toMatch(/RFC \d+|OIDC|OpenID Connect/);
      expect(p.remedy).not.toContain('\n');
    }
    // Every category of the issue has probes (protected-resource and sessions come from other branches; fapi2's run with --plan fapi2).
    const categories = new Set(probes.map((p) => p.category));
    for (const c of PROBE_CATEGORIES.filter((c) => c !== 'protected-resource' && c !== 'sessions' && c !== 'fapi2')) expect(categories).toContain(c);
  });

  it('text: grouped by category, with a count; --only narrows it to a category', async () => {
    const all = await cli('audit', '--list');
    expect(all.out).toMatch(/^authorization-endpoint \(\d+\)\n {2}flow +/);
    expect(all.out).toContain(`\n${PROBES.length} probes in `);
    const pkce = await cli('audit', '--list', '--only', 'pkce', '--json');
    const ids = (JSON.parse(pkce.out) as { probes: { id: string; category: string }[] }).probes;
    expect(new Set(ids.map((p) => p.category))).toEqual(new Set(['pkce']));
    expect(ids.map((p) => p.id)).toContain('pkce-verifier-short');
  });
});

describe('--only and --skip take probe ids and categories', () => {
  it('a category and an id together; --skip a category; a name that is both means the probe, category:NAME the category', async () => {
    const ids = async (...args: string[]) => (JSON.parse((await cli('audit', '--list', '--json', ...args)).out) as { probes: { id: string }[] }).probes.map((p) => p.id);
    expect(await ids('--only', 'introspection,flow')).toEqual(['flow', 'introspection-unauthenticated', 'introspection-unknown-token']);
    expect(await ids('--only', 'tls')).toEqual(['tls']);
    expect(await ids('--only', 'category:tls')).toEqual(['https-endpoints', 'tls', 'tls-hsts-max-age', 'tls-hsts-all-pages', 'tls-cookie-secure', 'tls-1-3', 'tls-forward-secrecy']);
    const skipped = await ids('--skip', 'jwt,dpop');
    expect(skipped.length).toBe(PROBES.filter((p) => p.category !== 'jwt' && p.category !== 'dpop').length);
  });

  it('an unknown name: exit 2, one line naming it and the categories', async () => {
    const { code, err } = await cli('audit', '--list', '--only', 'pkce,nonsense');
    expect(code).toBe(2);
    expect(err).toMatch(/unknown probe or category "nonsense"/);
    expect(err).toMatch(/categories: authorization-endpoint, /);
    expect(err).not.toMatch(/\n\s+at /);
  });
});

describe('reports: SARIF, and what was not tested', () => {
  it('--sarif: SARIF 2.1.0 valid against the OASIS schema, one result per failing or warning probe, written 0600', async () => {
    // A weakness of each kind: the metadata stops announcing iss (a warning), the token_type goes (a failure).
    server.weakness = rewriteJson(
      (req) => req.url.pathname.startsWith('/.well-known/') || req.url.pathname === '/token',
      (json, req) => (req.url.pathname === '/token' ? delete json.token_type : delete json.authorization_response_iss_parameter_supported),
    );
    const sarif = join(dir, 'out', 'audit.sarif');
    const { code, report } = await auditJson(server.url, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--only', 'flow,metadata-iss-parameter,token-type,code-entropy', '--sarif', sarif);
    server.weakness = {};
    expect(code).toBe(1);
    expect(statSync(sarif).mode & 0o777).toBe(0o600);
    const log = JSON.parse(readFileSync(sarif, 'utf8')) as {
      version: string;
      runs: { tool: { driver: { rules: { id: string; help: { text: string } }[] } }; results: { ruleId: string; level: string; ruleIndex: number }[] }[];
    };
    const ajv = new Ajv({ strict: false, allErrors: true });
    // ajv-formats is CommonJS: under NodeNext its plugin is the default export's default.
    const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync('test/fixtures/sarif/sarif-schema-2.1.0.json', 'utf8')) as object);
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const [runLog] = log.runs;
    expect(runLog?.results.map((r) => [r.ruleId, r.level])).toEqual([
      ['metadata-iss-parameter', 'warning'],
      ['token-type', 'error'],
    ]);
    const rules = runLog?.tool.driver.rules ?? [];
    expect(rules[runLog?.results[1]?.ruleIndex ?? -1]?.id).toBe('token-type');
    expect(rules.find((r) => r.id === 'token-type')?.help.text).toBe(report.probes.find((p) => p.id === 'token-type')?.remedy);
  });

  it('not_tested in JSON, and in the table, Markdown and JUnit reports', async () => {
    const md = join(dir, 'audit.md');
    const xml = join(dir, 'audit.xml');
    const io = memoryIO();
    const code = await run(
      ['audit', '--auth-url', server.url, ...ACCOUNT, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--only', 'tokens,revocation', '--markdown', md, '--junit', xml],
      io,
    );
    expect(code).toBe(0);
    expect(io.out()).toMatch(/\nNot tested:\n {2}refresh-token-entropy, refresh-scope-widening, revocation-refresh-token: no refresh token was issued \(ask for offline_access in --scope\)\n/);
    expect(readFileSync(md, 'utf8')).toContain('### Not tested');
    expect(readFileSync(xml, 'utf8')).toMatch(/<system-out>Not tested:\n.*no second client/s);
    const { report } = await auditJson(server.url, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--only', 'tokens,revocation');
    expect(report.summary.not_tested).toContainEqual({ what: 'refresh-token-client-binding, revocation-other-client', why: 'no second client (give --second-client-id and --second-client-secret)' });
    expect(report.probes[0]).toEqual({
      id: expect.any(String),
      title: expect.any(String),
      status: expect.any(String),
      rfc: expect.any(String),
      detail: expect.any(String),
      category: expect.any(String),
      threat: expect.any(String),
      remedy: expect.any(String),
    });
  });
});
