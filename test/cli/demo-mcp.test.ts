import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeEnv, runCli } from '../helpers/cli.js';

describe('oauthctl demo --mcp', () => {
  it("walks an MCP client's authorization at the mock's MCP server and prints whoami; leaves nothing in the user's files", async () => {
    const home = mkdtempSync(join(tmpdir(), 'oauthctl-demo-mcp-'));
    try {
      const result = await runCli(['demo', '--mcp', '--timeout', '20'], { env: homeEnv(home) });
      expect(result.code, result.stderr).toBe(0);
      const who = JSON.parse(result.stdout) as { sub: string; client_id: string; scope: string };
      expect(who).toMatchObject({ sub: 'alice', scope: 'photo' });
      expect(who.client_id).toMatch(/^dyn-/);
      // The steps, in order: the 401 to initialize, the metadata, registration, the code flow with resource=, the token, initialize, whoami.
      const steps = [
        'POST initialize without a token',
        'HTTP 401; WWW-Authenticate names resource_metadata=',
        'Client registration (RFC 7591)',
        'resource=http',
        'Token response',
        'POST initialize with the access token',
        'tools/call whoami',
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
