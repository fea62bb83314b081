import type { Command } from 'commander';
import type { IO } from '../../output/io.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';

export interface ClientCredentialsOptions extends FlowOptionsInput, CommonOptions {
  json?: boolean;
  /** false with --no-cache. */
  cache?: boolean;
}

/**
 * The client credentials grant (RFC 6749 section 4.4): one token request in the client's own name,
 * authenticated as the flow options say. The token is cached like a login's, marked so that `token`
 * and `call` ask anew when it expires (there is no refresh token, section 4.4.3).
 */
export async function runClientCredentials(options: ClientCredentialsOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ requestClientCredentials }, { narrateTokenResponse, printTokenResponse, warnScopesNotGranted }, { cacheTokens }] = await Promise.all([
      import('../../client/flows/client-credentials.js'),
      import('../../output/tokens.js'),
      import('../login/after-login.js'),
    ]);
    if (config.authMethod === 'none') renderer.warn('the client credentials grant is for confidential clients (RFC 6749 section 4.4); a server should refuse a public one');
    renderer.step('Token request');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=client_credentials, client authentication: ${config.authMethod})`);
    const tokens = await requestClientCredentials(http, config, { scopes: config.scopes, resources: config.resources });
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
    warnScopesNotGranted(renderer, config.scopes, tokens);
    if (options.cache !== false) await cacheTokens({ config, tokens, http, renderer, io, profile: options.profile, grant: 'client_credentials' });
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('client-credentials').description('Get a token for the client itself: the client credentials grant (RFC 6749 section 4.4).');
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received').option('--no-cache', 'do not keep the token for `oauthctl token` and `call`');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
The token is cached under the profile (or server and client): \`oauthctl token\` asks for a new one when
it expires, since this grant has no refresh token.

Examples:
  $ oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --scope photo
  $ oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --no-cache --json`,
    )
    .action(async (options: ClientCredentialsOptions, command: Command) => {
      setExitCode(command, await runClientCredentials(options, io));
    });
}
