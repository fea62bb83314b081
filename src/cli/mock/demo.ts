import type { Command } from 'commander';
import { addCommonOptions, parseInteger, setExitCode, type CommonOptions } from '../program/command.js';
import type { IO } from '../../output/io.js';
import { canShowBrowser } from '../../agent/browser.js';

export interface DemoOptions extends CommonOptions {
  /** false with --no-browser */
  browser?: boolean;
  headless?: boolean;
  timeout?: number;
  json?: boolean;
  /** The MCP demo (demo-mcp.ts). */
  mcp?: boolean;
}

export const DEMO_USER = { username: 'alice', password: 'wonderland' } as const;
const DEMO_CLIENT_ID = 'photo-cli';
const DEMO_SCOPE = 'openid photo offline_access';

/**
 * Starts the mock on a free loopback port, runs `login --pkce` against it as the public client
 * photo-cli, then calls the protected API with the new access token. Returns the exit code.
 */
export async function runDemo(options: DemoOptions, io: IO): Promise<number> {
  const [{ createMockServer }, { runLogin }, { createRenderer }] = await Promise.all([import('../../mock/index.js'), import('../login/login.js'), import('../../output/render.js')]);
  const renderer = createRenderer(io, options);
  if (options.mcp === true) return (await import('./demo-mcp.js')).runMcpDemo(options, io, renderer, DEMO_USER);
  const mock = await createMockServer();
  try {
    const headless = options.headless === true || (options.browser !== false && !canShowBrowser(io.env));
    renderer.step('Built-in mock authorization server');
    renderer.info(`issuer and auth_url ${mock.authUrl}, protected API ${mock.baseUrl}`);
    renderer.info(`public client ${DEMO_CLIENT_ID} (no secret, PKCE required); user ${DEMO_USER.username}, password ${DEMO_USER.password}`);
    renderer.info('the client creates a PKCE code verifier and sends only its S256 challenge; the verifier proves, at the token endpoint, that the code is ours (RFC 7636)');
    if (headless) {
      renderer.info(
        options.headless ? 'logging in with the built-in user agent (--headless)' : 'no browser to open here (no BROWSER, DISPLAY or WAYLAND_DISPLAY): logging in with the built-in user agent',
      );
    } else {
      renderer.info(`log in as ${DEMO_USER.username} / ${DEMO_USER.password} in the browser, then allow the access`);
    }
    return await runLogin(
      {
        authUrl: mock.authUrl,
        clientId: DEMO_CLIENT_ID,
        pkce: true,
        scope: [DEMO_SCOPE],
        call: `${mock.baseUrl}/photos`,
        cache: false,
        ...(options.browser === false && { browser: false }),
        ...(headless && { headless: true, username: DEMO_USER.username, password: DEMO_USER.password }),
        ...(options.timeout !== undefined && { timeout: options.timeout }),
        ...(options.json !== undefined && { json: options.json }),
        ...(options.verbose !== undefined && { verbose: options.verbose }),
        ...(options.color !== undefined && { color: options.color }),
        ...(options.showSecrets !== undefined && { showSecrets: options.showSecrets }),
      },
      io,
    );
  } finally {
    await mock.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('demo')
    .description('Start the built-in mock on a free port, run login --pkce against it, then call its protected API, explaining each step.')
    .option('--no-browser', 'print the authorization URL instead of opening a browser, then wait')
    .option('--headless', 'log in as alice with the built-in user agent instead of a browser (chosen by itself when no browser can be shown)')
    .option('--timeout <SECONDS>', 'give up waiting for the redirect after this many seconds (default 300)', parseInteger('--timeout', 1, 86_400))
    .option('--json', 'print the token response as JSON on stdout (the API response goes to stderr)')
    .option('--mcp', "the mock's MCP server instead: an MCP client's whole authorization (the first POST, 401, metadata, registration, login, token), then tools/call whoami");
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl demo
  $ oauthctl demo --no-browser
  $ oauthctl demo --headless --verbose
  $ oauthctl demo --mcp`,
    )
    .action(async (options: DemoOptions, command: Command) => {
      setExitCode(command, await runDemo(options, io));
    });
}
