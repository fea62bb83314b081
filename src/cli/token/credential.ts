import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { IO } from '../../output/io.js';
import { loadConfig, type Profile } from '../../store/config-store.js';
import { configFilePath } from '../../store/paths.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addHelperOptions, type TokenOptions } from './token.js';

/**
 * `oauthctl credential git get|store|erase`: a git credential helper (git-credential(1)). git writes
 * `key=value` lines on stdin, ended by a blank line or the end of input; `get` answers with the
 * access token of the profile bound to the host (`profile add NAME ... --host HOST`), `store` has
 * nothing to keep (the tokens are oauthctl's), `erase` after a 401 forgets the access token so that
 * the next `get` refreshes. For a host no profile names nothing is printed, so git asks the next helper.
 */
export type CredentialAction = 'get' | 'store' | 'erase';

export type CredentialOptions = Omit<TokenOptions, 'format' | 'execApiVersion' | 'execToken' | 'json'>;

/** A request's attributes; `capability[]` and other `[]` keys may repeat. */
export type CredentialRequest = Map<string, string[]>;

/** More than any request git sends: a flood on stdin is refused, not buffered. */
const MAX_REQUEST_BYTES = 64 * 1024;

export function parseCredentialRequest(text: string): CredentialRequest {
  const request: CredentialRequest = new Map();
  for (const line of text.split('\n')) {
    if (line === '') break;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new UsageError(`not a git credential attribute: ${JSON.stringify(line.slice(0, 40))}`, 'git-credential(1) sends key=value lines');
    const key = line.slice(0, eq);
    request.set(key, [...(request.get(key) ?? []), line.slice(eq + 1)]);
  }
  return request;
}

async function readRequest(io: IO): Promise<CredentialRequest> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_REQUEST_BYTES) throw new UsageError(`the credential request is larger than ${MAX_REQUEST_BYTES} bytes`, 'git sends a few short lines');
    chunks.push(buffer);
    // A blank line ends the request; git may keep stdin open after it.
    if (/\n\n|^\n/.test(Buffer.concat(chunks).toString('utf8'))) break;
  }
  return parseCredentialRequest(Buffer.concat(chunks).toString('utf8').replace(/\r\n/g, '\n'));
}

const first = (request: CredentialRequest, key: string) => request.get(key)?.[0];

/**
 * The profile bound to the request's host (compared as git sends it, case aside) whose server has the
 * request's scheme: a token got over https is never given for plain http (RFC 6750 section 5.3: bearer
 * tokens over TLS only), which a submodule or a redirect to `http://` the same host would ask for.
 */
async function profileForHost(request: CredentialRequest, options: CredentialOptions, io: IO): Promise<{ name: string; profile: Profile } | undefined> {
  const protocol = first(request, 'protocol');
  const host = first(request, 'host')?.toLowerCase();
  if (host === undefined || (protocol !== 'http' && protocol !== 'https')) return undefined;
  const { config } = await loadConfig(configFilePath(io.env, options.config));
  const wantedUser = first(request, 'username');
  const bound = Object.entries(config.profiles).filter(([, p]) => p.host?.toLowerCase() === host && serverScheme(p) === protocol);
  const match = bound.find(([, p]) => wantedUser !== undefined && (p.username ?? 'oauth2') === wantedUser) ?? bound[0];
  return match && { name: match[0], profile: match[1] };
}

/** `http` or `https`: the scheme of the server the profile logs in at. */
function serverScheme(profile: Profile): string | undefined {
  const server = profile.issuer ?? profile.auth_url ?? profile.token_endpoint;
  if (server === undefined) return undefined;
  try {
    return new URL(server).protocol.replace(/:$/, '');
  } catch {
    return undefined;
  }
}

/** A value git reads up to the end of its line: a newline or NUL in it would forge other attributes. */
function attribute(key: string, value: string): string {
  if (/[\n\r\0]/.test(value)) throw new UsageError(`the ${key} holds a line break or NUL, which git's credential protocol cannot carry`);
  return `${key}=${value}\n`;
}

export async function runCredentialGit(action: CredentialAction, options: CredentialOptions, io: IO): Promise<number> {
  const request = await readRequest(io);
  if (action === 'store') return 0;
  const bound = await profileForHost(request, options, io);
  if (bound === undefined) return 0;
  const selector = { ...options, profile: bound.name };
  const { openTokenCache } = await import('../../store/token-cache.js');
  if (action === 'erase') {
    const password = first(request, 'password') ?? first(request, 'credential');
    if (password !== undefined) await (await import('../../store/token-cache.js')).forgetAccessToken(openTokenCache(io.env), { profile: bound.name }, password);
    return 0;
  }
  const [{ createHttpClient }, { accessTokenFromCache }, { createRenderer }, { helperLogin }] = await Promise.all([
    import('../../client/http/http.js'),
    import('../../client/cache/cached-login.js'),
    import('../../output/render.js'),
    import('./helper-login.js'),
  ]);
  const renderer = createRenderer(io, options);
  const http = createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: options.httpTimeout !== undefined ? options.httpTimeout * 1000 : undefined });
  try {
    const logIn = options.login === false ? undefined : helperLogin(selector, io);
    const tell = (line: string) => io.stderr.write(`oauthctl: ${line}\n`);
    const result = await accessTokenFromCache(selector, {
      http,
      env: io.env,
      cache: openTokenCache(io.env),
      tell,
      ...(logIn && { logIn }),
      ...(options.timeout !== undefined && { waitMs: options.timeout * 1000 }),
    });
    const expiry = result.entry.expires_at !== undefined && result.entry.expires_at > 0 ? attribute('password_expiry_utc', String(result.entry.expires_at)) : '';
    // git 2.46 and later: a helper that announces the authtype capability may give any scheme (gitcredentials(7)).
    if (request.get('capability[]')?.includes('authtype')) {
      io.stdout.write(`capability[]=authtype\n${attribute('authtype', 'Bearer')}${attribute('credential', result.accessToken)}${expiry}`);
    } else {
      io.stdout.write(`${attribute('username', bound.profile.username ?? 'oauth2')}${attribute('password', result.accessToken)}${expiry}`);
    }
    return 0;
  } finally {
    await http.close();
  }
}

const EXAMPLES = `Examples:
  $ oauthctl profile add git --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope "openid photo offline_access" --host 127.0.0.1:9000
  $ git config --global credential.http://127.0.0.1:9000.helper "!oauthctl credential git"
  $ printf 'protocol=http\\nhost=127.0.0.1:9000\\n\\n' | oauthctl credential git get`;

function parseAction(value: string): CredentialAction {
  if (value !== 'get' && value !== 'store' && value !== 'erase') throw new UsageError(`git credential action must be get, store or erase, got ${JSON.stringify(value)}`);
  return value;
}

export function register(program: Command, io: IO): void {
  const credential = program.command('credential').description('Credential helpers for other programs: `credential git` speaks git-credential(1).').addHelpText('after', `\n${EXAMPLES}`);
  const git = credential
    .command('git')
    .description('a git credential helper: the access token of the profile bound to the host (profile add NAME --host HOST)')
    .argument('<ACTION>', 'get, store or erase (git calls the helper with one of these)', parseAction);
  addCommonOptions(addHelperOptions(git))
    .addHelpText('after', `\ngit writes key=value lines on stdin; for a host that no profile names nothing is printed.\n\n${EXAMPLES}`)
    .action(async (action: CredentialAction, options: CredentialOptions & CommonOptions, cmd: Command) => setExitCode(cmd, await runCredentialGit(action, options, io)));
}
