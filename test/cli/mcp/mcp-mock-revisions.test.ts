// `oauthctl mcp` against the mock's own MCP endpoint in each revision it speaks: 2026-07-28 by default
// (region_echo's x-mcp-header, greet's input_required answered from --input), 2025-11-25 when forced
// (greet's elicitation on the stream), and the fallback when the mock speaks only the earlier revisions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { homeEnv, runCli } from '../../helpers/cli.js';

const home = mkdtempSync(join(tmpdir(), 'oauthctl-mcp-revisions-'));
const env = homeEnv(home);
let mock: MockServer;
let legacyOnly: MockServer;
beforeAll(async () => {
  mock = await createMockServer({}, { autoLogin: 'alice' });
  legacyOnly = await createMockServer({ mcp: { protocol_versions: ['2025-11-25', '2025-06-18'] } }, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock?.close();
  await legacyOnly?.close();
  rmSync(home, { recursive: true, force: true });
});

const text = (stdout: string) => (JSON.parse(stdout) as { content: { text: string }[] }).content[0]!.text;

describe("oauthctl mcp and the mock's MCP endpoint", () => {
  it('2026-07-28: authorizes, then region_echo with its Mcp-Param-Region header, and greet answered from --input (SEP-1034 default)', async () => {
    const url = `${mock.baseUrl}/mcp`;
    const echo = await runCli(['mcp', url, 'tools/call', 'region_echo', '--arguments', '{"region":"eu-west","text":"hi"}', '--headless', '--json'], { env });
    expect(echo.code, echo.stderr).toBe(0);
    expect(text(echo.stdout)).toBe('eu-west: hi');
    expect(echo.stderr).toContain('MCP 2026-07-28');
    expect(echo.stderr).not.toContain('initialize');

    const greet = await runCli(['mcp', url, 'tools/call', 'greet', '--json', '--input', '{"name":{"action":"accept","content":{}}}'], { env });
    expect(greet.code, greet.stderr).toBe(0);
    expect(text(greet.stdout)).toBe('Hello, world!');
    expect(greet.stderr).toContain('the server asks for input: name (elicitation/create)');

    const unanswered = await runCli(['mcp', url, 'tools/call', 'greet'], { env, input: '' });
    expect(unanswered.code).toBe(1);
    expect(unanswered.stderr).toContain('asks for input that was not given: "name" (elicitation/create): "Who should be greeted?"');
  });

  it('2025-11-25 when forced: initialize and the session; greet elicits on the stream, answered under elicitation/create', async () => {
    const url = `${mock.baseUrl}/mcp`;
    const greet = await runCli(
      ['mcp', url, 'tools/call', 'greet', '--headless', '--json', '--mcp-version', '2025-11-25', '--input', '{"elicitation/create":{"action":"accept","content":{"name":"Bob"}}}'],
      { env },
    );
    expect(greet.code, greet.stderr).toBe(0);
    expect(text(greet.stdout)).toBe('Hello, Bob!');
    expect(greet.stderr).toContain('MCP initialize, offering 2025-11-25');
  });

  it('a mock that speaks only the earlier revisions: its UnsupportedProtocolVersionError moves the client to the newest of them', async () => {
    const url = `${legacyOnly.baseUrl}/mcp`;
    const r = await runCli(['mcp', url, '--headless', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the server answered UnsupportedProtocolVersionError naming 2025-11-25, 2025-06-18: the server speaks an earlier revision; falling back to the initialize handshake');
    expect(r.stderr).toContain('protocol version 2025-11-25');
  });
});
