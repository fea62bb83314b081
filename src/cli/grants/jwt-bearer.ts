import type { Command } from 'commander';
import type { IO } from '../../output/io.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';

export interface JwtBearerOptions extends FlowOptionsInput, CommonOptions {
  /** --assertion JWT|@FILE: the JWT the workload holds. */
  assertion: string;
  json?: boolean;
  /** false with --no-cache. */
  cache?: boolean;
}

/**
 * The JWT bearer grant (RFC 7523 section 2.1) with a JWT the workload already holds (a cloud or CI
 * platform's identity token: workload identity federation). Output and caching as client-credentials.
 */
export async function runJwtBearer(options: JwtBearerOptions, io: IO): Promise<number> {
  const [{ readValueOrFile }, { checkAssertion }] = await Promise.all([import('../mcp/mcp-params.js'), import('../../client/flows/jwt-bearer.js')]);
  const assertion = checkAssertion(await readValueOrFile(options.assertion, '--assertion'));
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ requestJwtBearer }, { narrateTokenResponse, printTokenResponse, warnScopesNotGranted }, { cacheTokens }, { JWT_BEARER_GRANT }] = await Promise.all([
      import('../../client/flows/jwt-bearer.js'),
      import('../../output/tokens.js'),
      import('../login/after-login.js'),
      import('../../oauth/grant-types.js'),
    ]);
    renderer.step('Token request (RFC 7523 section 2.1)');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=${JWT_BEARER_GRANT}, client authentication: ${config.authMethod})`);
    const tokens = await requestJwtBearer(http, config, { assertion, scopes: config.scopes, resources: config.resources });
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
    warnScopesNotGranted(renderer, config.scopes, tokens);
    if (options.cache !== false) await cacheTokens({ config, tokens, http, renderer, io, profile: options.profile, grant: JWT_BEARER_GRANT });
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('jwt-bearer')
    .description('Get a token with a JWT the workload holds: the JWT bearer grant (RFC 7523 section 2.1), for workload identity federation.')
    .requiredOption('--assertion <JWT|@FILE>', "the workload's JWT (its platform's identity token), or @FILE to read it");
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received').option('--no-cache', 'do not keep the token for `oauthctl token` and `call`');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
The token is cached under the profile (or server and client), as client-credentials caches its own.
The assertion itself is never kept. docs/commands.md ("oauthctl jwt-bearer") runs it against the mock
with fixtures/mock/workload.jsonc, whose named issuer ci plays the workload's platform. Below,
workload.jwt is the JWT the platform gave the workload, for a server that trusts the platform.

Examples:
  $ oauthctl jwt-bearer --issuer https://login.example.com --client-id deployer --assertion @workload.jwt
  $ oauthctl jwt-bearer --issuer https://login.example.com --client-id deployer --assertion @workload.jwt --scope deploy --json`,
    )
    .action(async (options: JwtBearerOptions, command: Command) => {
      setExitCode(command, await runJwtBearer(options, io));
    });
}
