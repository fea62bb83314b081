// `oauthctl mcp --dpop` (the built CLI) against the mock's own MCP endpoint on loopback, with DPoP nonces
// required by the mock (`dpop_nonce`: its token endpoint and its MCP endpoint): a DPoP-bound token
// (token_type DPoP, cnf.jkt), every MCP request with a proof; the same token as Bearer refused; the
// cached DPoP login reused by a second run with a proof by the same key (SEP-1932, RFC 9449).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

const home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-dpop-'));
const env = homeEnv(home);
let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer({ dpop_nonce: true }, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('oauthctl mcp --dpop against the mock', () => {
  it('gets a DPoP-bound token through both nonces, reuses it from the cache with a proof, and the mock refuses it as Bearer', async () => {
    const url = `${mock.baseUrl}/mcp`;
    const first = await runCli(['mcp', url, '--dpop', '--headless', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    // The authorization server's nonce at the token endpoint (the MCP endpoint, at the same origin, takes the same one).
    expect(first.stderr).toContain('the server asked for a DPoP nonce (use_dpop_nonce); sending the request again with it');
    expect(first.stderr).toContain('token_type: DPoP');

    const shown = await runCli(['token', '--protected-resource', url, '--json', '--no-login'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    const token = JSON.parse(shown.stdout) as { access_token: string; token_type: string };
    expect(token.token_type).toBe('DPoP');
    const cnf = decodeJwt(token.access_token).cnf as { jkt?: string } | undefined;
    expect(cnf?.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The cached login, a second run: the same key's proof, the MCP endpoint's nonce again, no new login.
    const second = await runCli(['mcp', url, 'tools/call', 'echo', '--arguments', '{"text":"bound"}', '--json'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(second.stdout))).toContain('bound');
    expect(second.stderr).toContain(`Using the DPoP-bound login cached for ${url}`);
    expect(second.stderr).not.toContain('Authorization request');
    // A new run knows no nonce yet: the MCP endpoint asks for its own, and the request goes again once with it.
    expect(second.stderr).toContain("use_dpop_nonce to tools/list: sending it again with the MCP server's DPoP nonce (RFC 9449 section 9)");

    // The fast path alone (dist/oauthctl-mcp.cjs, without the command line): it answers, never handing over (99).
    const fastOnly = join(home, 'fast-only.cjs');
    writeFileSync(
      fastOnly,
      `const l = require(${JSON.stringify(join(process.cwd(), 'bin', 'load-cli.js'))}); l.loadCli('auto', l.MCP_BUNDLE).cli.mcpFromCache(process.argv.slice(2)).then((c) => process.exit(c === undefined ? 99 : c));`,
    );
    const fast = await runCli(['mcp', url, 'tools/list', '--json'], { env, bin: fastOnly });
    expect(fast.code, fast.stderr).toBe(0);
    expect(fast.stderr).toContain(`Using the DPoP-bound login cached for ${url}`);
    expect(fast.stderr).toContain("use_dpop_nonce to tools/list: sending it again with the MCP server's DPoP nonce (RFC 9449 section 9)");

    // An attacker who stole the token and has not the key: as Bearer, refused with a DPoP challenge.
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_token"/);
    expect(((await res.json()) as { error_description: string }).error_description).toContain('DPoP-bound');

    // As DPoP without a proof: refused too.
    const noProof = await fetch(url, {
      method: 'POST',
      headers: { authorization: `DPoP ${token.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noProof.status).toBe(401);
    expect(noProof.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
  });
});
