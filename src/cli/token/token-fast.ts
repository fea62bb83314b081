import type { OutStream } from '../../output/io.js';
import { escapeForStream } from '../../output/escape.js';
import { selectedProfileName } from '../../store/config-store.js';
import { DEFAULT_EXPIRY_SKEW_SECONDS, openTokenCache, readCachedTokens, tokenState } from '../../store/token-cache.js';
import { formatToken, idTokenExpiry, TOKEN_FORMATS, type ExecToken, type TokenFormat } from './token-formats.js';

/**
 * The hot path of kubectl, git and curl, in a bundle of its own (dist/oauthctl-token.cjs, without
 * commander or the flows): `oauthctl token --profile NAME [--format F]` with a valid cached token prints
 * it and is done. Anything else (another option, --help, no profile, an expired token, an error of any
 * kind) answers false having printed nothing, and bin/oauthctl.js runs the command line as usual, which
 * does the same with every check and message.
 */
const VALUED = new Set(['--profile', '--format', '--exec-token', '--exec-api-version', '--config', '--token-store', '--timeout', '--http-timeout']);
const FLAGS = new Set(['--no-login', '--insecure', '-q', '--quiet']);

export async function tokenFromCache(argv: readonly string[], env: NodeJS.ProcessEnv, stdout: OutStream): Promise<boolean> {
  if (argv[0] !== 'token') return false;
  const options: Record<string, string> = {};
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (FLAGS.has(name) && inline === undefined) continue;
    if (!VALUED.has(name)) return false;
    const value = inline ?? argv[++i];
    if (value === undefined || name in options) return false;
    options[name] = value;
  }
  const format = (options['--format'] ?? 'bare') as TokenFormat;
  const execToken = (options['--exec-token'] ?? 'id_token') as ExecToken;
  if (!TOKEN_FORMATS.includes(format) || (execToken !== 'id_token' && execToken !== 'access_token')) return false;
  try {
    const profile = selectedProfileName(options['--profile'], env);
    if (profile === undefined) return false;
    const cache = openTokenCache(env);
    const entry = await readCachedTokens(cache, { profile });
    if (entry === undefined || tokenState(entry, cache.now()) === 'expired') return false;
    let text: string;
    if (format === 'bare') {
      text = `${escapeForStream(stdout, entry.access_token)}\n`;
    } else {
      const exp = format === 'exec-credential' && execToken === 'id_token' && entry.id_token !== undefined ? idTokenExpiry(entry.id_token) : undefined;
      if (exp !== undefined && exp - DEFAULT_EXPIRY_SKEW_SECONDS <= cache.now() / 1000) return false;
      // A DPoP key's thumbprint (in the JSON) needs jose: the full command prints that one.
      if (format === 'json' && entry.client_keys?.dpop_jwk !== undefined) return false;
      text = escapeForStream(
        stdout,
        formatToken(format, entry, { execInfo: env.KUBERNETES_EXEC_INFO, apiVersion: options['--exec-api-version'], token: execToken }, { refreshed: false, nowMs: cache.now() }),
      );
    }
    stdout.write(text);
    return true;
  } catch {
    return false;
  }
}
