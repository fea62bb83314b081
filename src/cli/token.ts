import type { Command } from 'commander';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from './http-timeout.js';
import { escapeForStream } from '../output/escape.js';
import type { CachedLoginSelector } from '../client/cached-login.js';
import { printJson } from '../output/render.js';
import { addCachedLoginOptions } from './cached-login-options.js';
import { addCommonOptions, setExitCode, type CommonOptions } from './command.js';
import type { IO } from '../output/io.js';

export interface TokenOptions extends CachedLoginSelector, CommonOptions, HttpTimeoutOption {
  json?: boolean;
  insecure?: boolean;
}

/** Prints a valid access token from the cache, refreshing it first when it has expired (RFC 6749 section 6). */
export async function runToken(options: TokenOptions, io: IO, now?: () => number): Promise<number> {
  const [{ createRenderer }, { createHttpClient }, { accessTokenFromCache }, { openTokenCache }] = await Promise.all([
    import('../output/render.js'),
    import('../client/http.js'),
    import('../client/cached-login.js'),
    import('../store/token-cache.js'),
  ]);
  const renderer = createRenderer(io, options);
  // A refresh of a mutual-TLS login presents the client certificate again (RFC 8705).
  const { clientCertificate } = await (await import('./bound-login.js')).boundLoginOf(options, io.env);
  const http = createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: httpTimeoutMs(options), clientCertificate });
  try {
    const cache = openTokenCache(io.env, now ? { now } : {});
    const result = await accessTokenFromCache(options, { http, env: io.env, cache });
    if (result.refreshed) renderer.trace(`refreshed the cached access token at ${result.entry.token_endpoint}`);
    if (options.json) {
      const e = result.entry;
      printJson(io, {
        access_token: result.accessToken,
        token_type: e.token_type,
        ...(e.client_keys?.dpop_jwk !== undefined && { dpop_jkt: await (await import('../client/keys.js')).importDpopKey(e.client_keys.dpop_jwk).then((k) => k.jkt) }),
        expires_at: e.expires_at,
        expires_in: e.expires_at !== undefined ? Math.max(0, e.expires_at - Math.floor(cache.now() / 1000)) : undefined,
        scope: e.scope,
        refreshed: result.refreshed,
      });
    } else {
      io.stdout.write(`${escapeForStream(io.stdout, result.accessToken)}\n`);
    }
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('token').description('Print a valid access token from the cache, refreshing it first when it has expired.');
  addHttpTimeoutOption(addCachedLoginOptions(cmd))
    .option('--client-secret <S>', 'client secret for the refresh of a confidential client (also OAUTHCTL_CLIENT_SECRET, or the profile)')
    .option('--insecure', 'do not verify TLS certificates (test servers only)')
    .option('--json', 'print {"access_token","token_type","expires_at","expires_in","scope","refreshed"}');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Exit 1 when no login is cached or the token cannot be refreshed (log in again).

Examples:
  $ oauthctl token --profile work
  $ curl -H "Authorization: Bearer $(oauthctl token --profile work)" http://127.0.0.1:9000/api/me
  $ OAUTHCTL_PROFILE=mock oauthctl token | oauthctl decode -`,
    )
    .action(async (options: TokenOptions, command: Command) => {
      setExitCode(command, await runToken(options, io));
    });
}
