import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import type { CommonOptions } from '../program/command.js';

/** What demo --mcp takes of demo's options. */
export interface McpDemoOptions extends CommonOptions {
  timeout?: number;
}

/**
 * `demo --mcp`: the mock with its MCP endpoint, and `oauthctl mcp URL tools/call whoami --headless`
 * against it: the first POST (2026-07-28) and its 401 (MCP 2025-11-25 authorization, RFC 9728 section 5.1), the
 * resource's metadata, the authorization server's, dynamic registration, PKCE with the resource
 * indicator (RFC 8707), the token, the request again with it, and whoami's result on stdout, each step narrated.
 */
export async function runMcpDemo(options: McpDemoOptions, io: IO, renderer: Renderer, user: { username: string; password: string }): Promise<number> {
  const [{ createMockServer }, { runMcp }] = await Promise.all([import('../../mock/index.js'), import('../mcp/mcp.js')]);
  const mock = await createMockServer(undefined, { autoLogin: user.username });
  const url = `${mock.baseUrl}/mcp`;
  // The registration and login at this short-lived mock are kept in a folder of the demo's own, removed at the end.
  const scratch = await mkdtemp(join(tmpdir(), 'oauthctl-demo-mcp-'));
  try {
    renderer.step('Built-in mock: an MCP server and its authorization server');
    renderer.info(`MCP endpoint ${url} (Streamable HTTP, tools whoami and echo); authorization server ${mock.issuer}`);
    renderer.info(`now: oauthctl mcp ${url} tools/call whoami --headless`);
    return await runMcp(
      url,
      'tools/call',
      'whoami',
      {
        headless: true,
        username: user.username,
        password: user.password,
        ...(options.timeout !== undefined && { timeout: options.timeout }),
        ...(options.verbose !== undefined && { verbose: options.verbose }),
        ...(options.color !== undefined && { color: options.color }),
        ...(options.showSecrets !== undefined && { showSecrets: options.showSecrets }),
      },
      { ...io, env: { ...io.env, XDG_CONFIG_HOME: scratch, XDG_STATE_HOME: scratch } },
    );
  } finally {
    await mock.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
