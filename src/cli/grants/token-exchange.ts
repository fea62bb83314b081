import type { Command } from 'commander';
import { issuedTokenTypeProblem, tokenTypeUrn } from '../../oauth/grant-types.js';
import { FlowError } from '../../errors.js';
import type { IO } from '../../output/io.js';
import { addCommonOptions, collect, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';

export interface TokenExchangeOptions extends FlowOptionsInput, CommonOptions {
  subjectToken?: string;
  subjectTokenType?: string;
  actorToken?: string;
  actorTokenType?: string;
  audience?: string[];
  requestedTokenType?: string;
  json?: boolean;
  strict?: boolean;
}

/**
 * Token exchange (RFC 8693): trades a subject token (by default the cached login's access token) and
 * optionally an actor token for a new token, for an audience or resource. Prints the token response,
 * whose issued_token_type says what was issued.
 */
export async function runTokenExchange(options: TokenExchangeOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ exchangeToken }, { narrateTokenResponse, printTokenResponse }] = await Promise.all([import('../../client/flows/token-exchange.js'), import('../../output/tokens.js')]);
    let subjectToken = options.subjectToken;
    if (subjectToken === undefined) {
      // The cached login: the --profile's, else the only one (the exchanging client is usually another).
      const { accessTokenFromCache } = await import('../../client/cache/cached-login.js');
      const cached = await accessTokenFromCache({ profile: options.profile, config: options.config }, { http, env: io.env });
      renderer.info(`subject token: the cached access token of ${cached.entry.client_id}`);
      subjectToken = cached.accessToken;
    }
    renderer.step('Token exchange request');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=urn:ietf:params:oauth:grant-type:token-exchange, client authentication: ${config.authMethod})`);
    const requestedTokenType = options.requestedTokenType !== undefined ? tokenTypeUrn(options.requestedTokenType) : undefined;
    const tokens = await exchangeToken(http, config, {
      subjectToken,
      subjectTokenType: options.subjectTokenType !== undefined ? tokenTypeUrn(options.subjectTokenType) : undefined,
      actorToken: options.actorToken,
      actorTokenType: options.actorTokenType !== undefined ? tokenTypeUrn(options.actorTokenType) : undefined,
      audiences: options.audience,
      resources: config.resources,
      requestedTokenType,
      scopes: config.scopes,
    });
    renderer.step('Token exchange response');
    narrateTokenResponse(renderer, tokens);
    const problem = issuedTokenTypeProblem(requestedTokenType, tokens.issued_token_type);
    if (problem === undefined) renderer.ok(`issued_token_type: ${String(tokens.issued_token_type)}`);
    else if (options.strict) throw new FlowError(problem, 'the server issued another kind of token than asked: do not use it as the asked kind');
    else renderer.warn(problem);
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('token-exchange')
    .description('Exchange a token for another (RFC 8693): impersonation, delegation with an actor token, another audience.')
    .option('--subject-token <T>', 'the token to exchange (default: the access token of the cached login, --profile or the only one)')
    .option('--subject-token-type <URN>', 'its type: a URN or access_token, refresh_token, id_token, jwt (default access_token)')
    .option('--actor-token <T>', 'the token of the party acting for the subject (delegation, RFC 8693 section 1.1)')
    .option('--actor-token-type <URN>', 'its type (default access_token)')
    .option('--audience <A>', 'the logical name of the target service; repeatable', collect)
    .option('--requested-token-type <URN>', 'the type of token wanted (e.g. access_token, jwt)')
    .option('--strict', 'fail (exit 1) when the issued_token_type is missing or is not the requested type, instead of warning');
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl token-exchange --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret \\
      --subject-token "$(oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --no-cache | sed -n 's/^access_token=//p')"
  $ oauthctl login --device --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope photo --headless --username alice --password wonderland
  $ oauthctl token-exchange --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret \
      --subject-token "$(oauthctl token --auth-url http://127.0.0.1:9000 --client-id photo-cli)" --json`,
    )
    .action(async (options: TokenExchangeOptions, command: Command) => {
      setExitCode(command, await runTokenExchange(options, io));
    });
}
