// A server whose JSON nests deeper than any OAuth document: the audit reads every server body with
// the client's bounded parser, so the probe that meets it fails with one line saying so, and the run
// goes on (no stack overflow, no stack trace). The built-in mock behind a proxy on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMockConfig } from '../../src/mock/index.js';
import { startWeakenedMock, type WeakenedMock } from '../audit/helpers/tamper-proxy.js';
import { auditJson } from '../audit/depth/helpers.js';

const DEPTH = 200_000;
const nested = `{"keys":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;
const CLIENT = ['--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo offline_access'];

let server: WeakenedMock;
beforeAll(async () => {
  server = await startWeakenedMock(await loadMockConfig('fixtures/audit/depth.json'));
});
afterAll(() => server.close());

describe('audit: a JSON body nested too deep', () => {
  it('at jwks_uri: jwks, jwks-kid-unique and id-token-kid-known fail with one line naming the URL, the other probes run as before', async () => {
    server.weakness = { answer: (req) => (req.url.pathname === '/jwks' ? { status: 200, headers: { 'content-type': 'application/json' }, body: nested } : undefined) };
    const { byId } = await auditJson(server.url, ...CLIENT, '--only', 'flow,state,jwks,jwks-kid-unique,id-token-kid-known');
    expect(byId.flow!.status).toBe('pass');
    expect(byId.state!.status).toBe('pass');
    for (const id of ['jwks', 'jwks-kid-unique', 'id-token-kid-known']) {
      expect(byId[id], id).toEqual({ status: 'fail', detail: `the answer of ${server.url}/jwks is nested more than 100 levels deep: refused (no OAuth document nests so deep)` });
    }
  });

  it('at the token endpoint: the probes that need a token say so in one line', async () => {
    server.weakness = { rewrite: (req, res) => (req.url.pathname === '/token' ? { ...res, body: `{"a":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}` } : res) };
    const { byId } = await auditJson(server.url, ...CLIENT, '--only', 'flow');
    expect(byId.flow!.status).toBe('fail');
    expect(byId.flow!.detail).toMatch(/nested more than 100 levels deep: refused/);
    expect(byId.flow!.detail).not.toMatch(/\n|\bat \S+ \(/);
  });
});
