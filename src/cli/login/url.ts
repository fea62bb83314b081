import type { Command } from 'commander';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import type { IO } from '../../output/io.js';

export interface UrlOptions extends FlowOptionsInput, CommonOptions {
  json?: boolean;
  /** --save FILE: keep state, verifier, endpoints and the DPoP key (0600) for `exchange --from FILE`. */
  save?: string;
}

export interface UrlResult {
  url: string;
  state: string;
  code_verifier?: string;
}

/** Builds the authorization request URL (RFC 6749 section 4.1.1, RFC 7636 section 4.3). */
export async function runUrl(options: UrlOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'authorization' });
    // With --par the request is pushed first and the URL carries only client_id and request_uri (RFC 9126 section 4).
    const url = await (await import('../../client/flows/pushed-authorization.js')).prepareAuthorizationUrl(http, config, config.redirectUri, renderer);
    if (options.save !== undefined) {
      await (await import('./split-flow.js')).saveFlow(options.save, config, url);
      renderer.info(`Saved the request to ${options.save} (mode 0600). After the login, finish with: oauthctl exchange --from ${options.save} --redirect-uri 'URL'`);
    } else if (config.dpop && options.dpopKey === undefined) {
      renderer.warn('the code will be bound to a fresh DPoP key that is not kept; use --save FILE (which keeps it) or --dpop-key FILE to exchange it');
    }
    const result: UrlResult = { url, state: config.state };
    if (config.pkce) result.code_verifier = config.pkce.codeVerifier;
    if (options.json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(`${url}\n`);
    // Needed to finish the flow later, so shown even without --show-secrets: they are this command's result.
    renderer.info(`state=${config.state}`);
    if (config.pkce) renderer.info(`code_verifier=${config.pkce.codeVerifier}  (give it to 'oauthctl exchange --code-verifier')`);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('url').description('Print the authorization request URL built from the flow options.');
  addFlowOptions(cmd)
    .option('--json', 'print {"url","state"} plus "code_verifier" with PKCE')
    .option('--save <FILE>', 'keep state, code verifier, redirect URI, endpoints, client id and DPoP key in FILE (0600) for `exchange --from FILE`');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl url --auth-url http://127.0.0.1:9000 --client-id photo-cli --pkce --scope photo
  $ oauthctl url --issuer http://127.0.0.1:9000 --client-id photo-web --scope "openid email" --param prompt=consent --json`,
    )
    .action(async (options: UrlOptions, command: Command) => {
      setExitCode(command, await runUrl(options, io));
    });
}
