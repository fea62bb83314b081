import type { Command } from 'commander';
import { formatScope } from '../oauth/scope.js';
import { addCommonOptions, setExitCode, type CommonOptions } from './command.js';
import { addFlowOptions, type FlowOptionsInput } from './flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from './flow-pipeline.js';
import type { IO } from '../output/io.js';

export interface RefreshOptions extends FlowOptionsInput, CommonOptions {
  refreshToken: string;
  json?: boolean;
}

/** One refresh_token token request (RFC 6749 section 6); --scope narrows the scope. */
export async function runRefresh(options: RefreshOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ requestToken }, { narrateTokenResponse, printTokenResponse }] = await Promise.all([import('../client/token.js'), import('../output/tokens.js')]);
    const scope = config.scopes.length > 0 ? formatScope(config.scopes) : undefined;
    renderer.step('Token request');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=refresh_token${scope ? `, scope=${scope}` : ''}, client authentication: ${config.authMethod})`);
    const tokens = await requestToken(http, config, { grant_type: 'refresh_token', refresh_token: options.refreshToken, scope }, { renderer });
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('refresh').description('Use a refresh token to get new tokens (one token request).').requiredOption('--refresh-token <R>', 'the refresh token');
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl refresh --refresh-token "$RT" --auth-url http://127.0.0.1:9000 --client-id photo-cli
  $ oauthctl refresh --refresh-token "$RT" --issuer https://id.example.com --client-id web --client-secret s3cret --scope photo --json`,
    )
    .action(async (options: RefreshOptions, command: Command) => {
      setExitCode(command, await runRefresh(options, io));
    });
}
