import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeEnv, runCli } from '../../helpers/cli.js';

describe('oauthctl demo --mcp', () => {
  it("runs oauthctl mcp tools/call whoami at the mock's MCP server, narrating the whole authorization; leaves nothing in the user's files", async () => {
    const home = mkdtempSync(join(tmpdir(), 'oauthctl-demo-mcp-'));
    try {
      const result = await runCli(['demo', '--mcp', '--timeout', '20'], { env: homeEnv(home) });
      expect(result.code, result.stderr).toBe(0);
      const who = (JSON.parse(result.stdout) as { structuredContent: { sub: string; client_id: string; scope: string } }).structuredContent;
      expect(who).toMatchObject({ sub: 'alice', scope: 'photo offline_access' });
      expect(who.client_id).toMatch(/^dyn-/);
      // The steps, in order: the 2026-07-28 request (the tool's declaration) and its 401, the metadata,
      // registration, the code flow with resource=, the token, then whoami.
      const steps = [
        'oauthctl mcp http',
        'MCP 2026-07-28',
        'HTTP 401 to tools/list',
        'the 401 names resource_metadata',
        'dynamic client registration (RFC 7591)',
        'resource=http',
        'Token response',
        'Mcp-Method tools/call',
      ];
      let at = 0;
      for (const step of steps) {
        const found = result.stderr.indexOf(step, at);
        expect(found, `${step} after position ${at}:\n${result.stderr}`).toBeGreaterThan(-1);
        at = found;
      }
      expect(result.stderr).not.toMatch(/access_token: ey/);
      expect(existsSync(join(home, 'config', 'oauthctl', 'registrations'))).toBe(false);
      expect(existsSync(join(home, 'state', 'oauthctl'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
