import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { CachedLoginSelector } from '../../client/cache/cached-login.js';
import type { HttpClient } from '../../client/http/http.js';
import { escapeTerminal } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import { printJson } from '../../output/render.js';
import { addCachedLoginOptions } from '../options/cached-login-options.js';
import { addCommonOptions, parseHttpUrl, setExitCode, type CommonOptions } from '../program/command.js';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from '../options/http-timeout.js';
import { tokenOrCached } from '../options/token-argument.js';
import type { BoundLogin } from '../login/bound-login.js';

export interface UserinfoOptions extends CachedLoginSelector, CommonOptions, HttpTimeoutOption {
  token?: string;
  userinfoEndpoint?: string;
  insecure?: boolean;
  json?: boolean;
  /** --dpop-key FILE: the key a DPoP-bound token is bound to (RFC 9449); default the cached login's. */
  dpopKey?: string;
}

/**
 * The userinfo endpoint (OpenID Connect Core section 5.3) with an access token: --token, else the cached
 * login's; a DPoP-bound one with a proof of its key (--dpop-key, else the cached login's, RFC 9449
 * section 7.1), as `call` sends it. The endpoint: --userinfo-endpoint, else the metadata of --issuer,
 * --auth-url, or the cached login's issuer.
 */
export async function runUserinfo(options: UserinfoOptions, io: IO): Promise<number> {
  const [{ createRenderer }, { createHttpClient }, { fetchUserinfo }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/http/http.js'),
    import('../../client/responses/token-info.js'),
  ]);
  const renderer = createRenderer(io, options);
  // A cached login's DPoP key (RFC 9449) and client certificate (RFC 8705): its tokens may be bound to them.
  const bound: BoundLogin = options.token === undefined ? await (await import('../login/bound-login.js')).boundLoginOf(options, io.env) : {};
  if (options.dpopKey !== undefined) {
    const [{ loadDpopKey }, { DpopSession }] = await Promise.all([import('../../client/flows/keys.js'), import('../../client/flows/dpop.js')]);
    bound.dpop = new DpopSession(await loadDpopKey(options.dpopKey));
  }
  const http = createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: httpTimeoutMs(options), clientCertificate: bound.clientCertificate });
  try {
    const token = await tokenOrCached(options.token, options, http, io, renderer);
    const endpoint = options.userinfoEndpoint ?? (await discoveredUserinfoEndpoint(options, http, io));
    renderer.step('UserInfo request');
    renderer.info(`GET ${endpoint}${bound.dpop ? ' (Authorization: DPoP, with a proof)' : ''}`);
    const claims = await fetchUserinfo(http, endpoint, token, bound.dpop, renderer);
    if (options.json) printJson(io, claims);
    else for (const [name, value] of Object.entries(claims)) io.stdout.write(`${escapeTerminal(name)}: ${escapeTerminal(typeof value === 'string' ? value : JSON.stringify(value))}\n`);
    return 0;
  } finally {
    await http.close();
  }
}

async function discoveredUserinfoEndpoint(options: UserinfoOptions, http: HttpClient, io: IO): Promise<string> {
  let issuer = options.issuer ?? options.authUrl?.replace(/\/+$/, '');
  if (issuer === undefined) {
    const { findCachedLogin } = await import('../../client/cache/cached-login.js');
    const { entry } = await findCachedLogin(options, io.env);
    issuer = entry?.issuer ?? entry?.token_endpoint.replace(/\/[^/]*$/, '');
  }
  if (issuer === undefined) throw new UsageError('no userinfo endpoint known', 'give --userinfo-endpoint, --issuer or --auth-url');
  const { discoverMetadata } = await import('../../client/flows/endpoints.js');
  const endpoint = (await discoverMetadata(http, issuer)).metadata.userinfo_endpoint;
  if (typeof endpoint !== 'string') throw new UsageError(`the metadata of ${issuer} names no userinfo_endpoint`, 'give --userinfo-endpoint');
  return endpoint;
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('userinfo').description('Show the claims the userinfo endpoint returns for an access token (OpenID Connect Core section 5.3).');
  addHttpTimeoutOption(addCachedLoginOptions(cmd))
    .option('--token <T>', "the access token (- reads it from stdin); default the cached login's")
    .option('--userinfo-endpoint <URL>', 'the userinfo endpoint; default from the metadata of the issuer', parseHttpUrl('--userinfo-endpoint'))
    .option('--insecure', 'do not verify TLS certificates (test servers only)')
    .option('--dpop-key <FILE>', "the DPoP key (P-256, PEM or JWK) the token is bound to: sends Authorization: DPoP with a proof (RFC 9449); default the cached login's")
    .option('--json', 'print the claims exactly as received');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
The access token needs the openid scope.

Examples:
  $ oauthctl login --auth-url http://127.0.0.1:9000 --client-id photo-cli --pkce --scope "openid profile email" --headless --username alice --password wonderland
  $ oauthctl userinfo --auth-url http://127.0.0.1:9000 --client-id photo-cli`,
    )
    .action(async (options: UserinfoOptions, command: Command) => {
      setExitCode(command, await runUserinfo(options, io));
    });
}
