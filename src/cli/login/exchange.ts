import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import type { IO } from '../../output/io.js';
import type { SavedFlow } from './split-flow.js';
import type { RedirectCapture } from '../../client/listeners/listener.js';

export interface ExchangeOptions extends FlowOptionsInput, CommonOptions {
  code?: string;
  json?: boolean;
  /** The split flow: a request saved by `url --save`, and the URL the browser was redirected to. */
  from?: string;
  redirectUrl?: string;
}

/** One authorization_code token request (RFC 6749 section 4.1.3) for a code obtained elsewhere. */
export async function runExchange(given: ExchangeOptions, io: IO): Promise<number> {
  let options = given;
  let saved: SavedFlow | undefined;
  let pending: RedirectCapture | undefined;
  if (given.from !== undefined || given.redirectUrl !== undefined) {
    const { from, redirectUrl } = requireSplitOptions(given);
    // The saved request holds the registered redirect URI: --redirect-uri names where the browser was sent.
    options = { ...given, redirectUri: undefined };
    const split = await import('./split-flow.js');
    saved = await split.loadSavedFlow(from);
    // The state (and iss) of the redirect are checked here, before anything is sent; a response JWT once its keys are known.
    ({ options, pending } = split.exchangeOptionsFromSavedFlow(options, saved, redirectUrl));
  }
  if (options.code === undefined && pending === undefined) throw new UsageError("required option '--code <C>' not specified", 'or finish a saved request with --from FILE --redirect-uri URL');
  if (options.pkce && options.codeVerifier === undefined) {
    throw new UsageError('--pkce would make a fresh verifier, but the exchange needs the one the authorization request used', 'give it with --code-verifier');
  }
  // No verifier given: the authorization request used none, so none is sent (no fresh default one).
  if (options.codeVerifier === undefined) options = { ...options, pkce: false };
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    // The saved request sent dpop_jkt: the code is bound to that key, so the token request proves it (RFC 9449 section 10).
    const savedDpop = saved && options.dpopKey === undefined ? await (await import('./split-flow.js')).dpopSessionOfSavedFlow(saved) : undefined;
    if (savedDpop) config.dpop = savedDpop;
    const code = saved && pending ? await (await import('./split-flow.js')).codeFromResponseJwt(http, config, pending, saved, renderer) : options.code!;
    const [{ requestToken }, { authorizationCodeGrant }, { narrateTokenResponse, printTokenResponse, warnScopesNotGranted }] = await Promise.all([
      import('../../client/flows/token.js'),
      import('../../client/flows/flow-config.js'),
      import('../../output/tokens.js'),
    ]);
    renderer.step('Token request');
    renderer.info(
      `POST ${config.tokenEndpoint} (grant_type=authorization_code, redirect_uri=${config.redirectUri}, client authentication: ${config.authMethod}${config.pkce ? ', with code_verifier' : ''})`,
    );
    const tokens = await requestToken(http, config, authorizationCodeGrant(config, code), { renderer });
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
    warnScopesNotGranted(renderer, config.scopes, tokens);
    // A saved flow is a whole login: check its ID token against the saved nonce and cache the tokens.
    if (saved) await (await import('./after-login.js')).afterLogin({ config, tokens, http, renderer, io, profile: options.profile, nonce: saved.nonce });
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
    .option('--code <C>', 'the authorization code from the redirect (required unless --from)')
    .option('--from <FILE>', 'finish a request saved by `oauthctl url --save FILE` (state checked first)')
    .option('--redirect-url <URL>', 'the older name of --redirect-uri with --from');
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
The redirect URI and code verifier must be the ones the authorization request used. With --from,
--redirect-uri is the URL the browser was sent to (the saved request holds the registered one).

Examples:
  $ oauthctl exchange --code "$CODE" --auth-url http://127.0.0.1:9000 --client-id photo-cli \\
      --redirect-uri http://127.0.0.1:8765/callback --code-verifier "$VERIFIER"
  $ oauthctl exchange --code "$CODE" --issuer http://127.0.0.1:9000 --client-id photo-cli --redirect-uri http://127.0.0.1:8765/callback --code-verifier "$VERIFIER" --json
  $ oauthctl url --issuer http://127.0.0.1:9000 --client-id photo-cli --scope openid --save flow.json      # then, anywhere:
  $ oauthctl exchange --from flow.json --redirect-uri "$REDIRECT_URL"    # where the browser was sent: 'http://127.0.0.1/callback?code=...&state=...'`,
    )
    .action(async (options: ExchangeOptions, command: Command) => {
      setExitCode(command, await runExchange(options, io));
    });
}

function requireSplitOptions(options: ExchangeOptions): { from: string; redirectUrl: string } {
  if (options.redirectUrl !== undefined && options.redirectUri !== undefined) {
    throw new UsageError('--redirect-url is the older name of --redirect-uri with --from: give one of them', 'e.g. --from flow.json --redirect-uri "$REDIRECT_URL"');
  }
  const redirectUrl = options.redirectUrl ?? (options.from !== undefined ? options.redirectUri : undefined);
  if (options.from === undefined || redirectUrl === undefined) {
    throw new UsageError(
      '--from and --redirect-uri (the URL the browser was sent to) go together',
      "e.g. oauthctl exchange --from flow.json --redirect-uri 'http://127.0.0.1:8765/callback?code=...&state=...'",
    );
  }
  if (options.code !== undefined) throw new UsageError('--code cannot be used with --from', 'the code comes from the URL the browser was sent to (--redirect-uri)');
  return { from: options.from, redirectUrl };
}
