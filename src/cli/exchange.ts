import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { addCommonOptions, setExitCode, type CommonOptions } from './command.js';
import { addFlowOptions, createFlowRuntime, resolveFlowConfig, type FlowOptionsInput } from './flow-options.js';
import type { IO } from './io.js';

export interface ExchangeOptions extends FlowOptionsInput, CommonOptions {
  code: string;
  json?: boolean;
}

/** One authorization_code token request (RFC 6749 section 4.1.3) for a code obtained elsewhere. */
export async function runExchange(options: ExchangeOptions, io: IO): Promise<number> {
  if (options.pkce && options.codeVerifier === undefined) {
    throw new UsageError('--pkce would make a fresh verifier, but the exchange needs the one the authorization request used', 'give it with --code-verifier');
  }
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ requestToken }, { narrateTokenResponse, printTokenResponse }] = await Promise.all([import('../client/token.js'), import('../output/tokens.js')]);
    renderer.step('Token request');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=authorization_code, redirect_uri=${config.redirectUri}, client authentication: ${config.authMethod}${config.pkce ? ', with code_verifier' : ''})`);
    const tokens = await requestToken(http, config, {
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: config.redirectUri,
      code_verifier: config.pkce?.codeVerifier,
    });
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('exchange')
    .description('Exchange an authorization code for tokens (one token request).')
    .requiredOption('--code <C>', 'the authorization code from the redirect');
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received');
  addCommonOptions(cmd)
    .addHelpText('after', `
The redirect URI and code verifier must be the ones the authorization request used.

Examples:
  $ oauthctl exchange --code SplxlOBeZQQYbYS6WxSbIA --auth-url http://127.0.0.1:9000 --client-id photo-web \\
      --client-secret photo-web-secret --redirect-uri http://127.0.0.1:8765/callback
  $ oauthctl exchange --code "$CODE" --issuer https://id.example.com --client-id cli --code-verifier "$VERIFIER" --json`)
    .action(async (options: ExchangeOptions, command: Command) => {
      setExitCode(command, await runExchange(options, io));
    });
}
