import type { Command } from 'commander';
import { findCachedLogin, type CachedLoginSelector } from '../../client/cache/cached-login.js';
import { describeKey, listCachedTokens, openTokenCache, serverOf, tokenState, type CachedTokens, type TokenCacheKey } from '../../store/token-cache.js';
import { decodeJwtUnverified, formatRelative } from '../../oauth/jwt.js';
import { escapeTerminal } from '../../output/escape.js';
import { createRenderer, printJson } from '../../output/render.js';
import { addCachedLoginOptions } from '../options/cached-login-options.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import type { IO } from '../../output/io.js';

export interface StatusOptions extends CachedLoginSelector, CommonOptions {
  json?: boolean;
  /** Every cached login, one line each (`--json`: an array). */
  all?: boolean;
}

export interface StatusResult {
  status: 'valid' | 'expired' | 'absent';
  profile?: string;
  issuer?: string;
  token_endpoint?: string;
  client_id?: string;
  /** The user: `sub` of the ID token, else of a JWT access token. */
  subject?: string;
  scope?: string;
  /** Seconds since the epoch; absent when the server gave no expiry. */
  expires_at?: number;
  /** Seconds left (negative once expired). */
  expires_in?: number;
  refresh_token: boolean;
  id_token: boolean;
  /** Where the login's secrets are kept: the cache file, or the OS keyring (--token-store). */
  kept_in?: 'file' | 'keyring';
}

export function statusOf(entry: CachedTokens | undefined, nowMs: number): StatusResult {
  if (!entry) return { status: 'absent', refresh_token: false, id_token: false };
  const out: StatusResult = {
    status: tokenState(entry, nowMs) === 'expired' ? 'expired' : 'valid',
    client_id: entry.client_id,
    token_endpoint: entry.token_endpoint,
    refresh_token: entry.refresh_token !== undefined,
    id_token: entry.id_token !== undefined,
    kept_in: entry.token_store === 'keyring' ? 'keyring' : 'file',
  };
  if (entry.profile !== undefined) out.profile = entry.profile;
  if (entry.issuer !== undefined) out.issuer = entry.issuer;
  const subject = subjectOf(entry);
  if (subject !== undefined) out.subject = subject;
  if (entry.scope !== undefined) out.scope = entry.scope;
  if (entry.expires_at !== undefined && entry.expires_at > 0) {
    out.expires_at = entry.expires_at;
    out.expires_in = entry.expires_at - Math.floor(nowMs / 1000);
  }
  return out;
}

/** `sub` of the cached ID token, else of the access token when it is a JWT (read, not verified: a label only). */
function subjectOf(entry: CachedTokens): string | undefined {
  for (const token of [entry.id_token, entry.access_token]) {
    const sub = token !== undefined ? decodeJwtUnverified(token)?.claims.sub : undefined;
    if (typeof sub === 'string') return sub;
  }
  return undefined;
}

/** Whether a login is needed: exit 0 when a valid token is cached, 1 when it expired or none is cached. */
export async function runStatus(options: StatusOptions, io: IO, now: () => number = Date.now): Promise<number> {
  if (options.all) return runStatusAll(options, io, now);
  const found = await findCachedLogin(options, io.env, openTokenCache(io.env, { now }));
  const result = statusOf(found.entry, now());
  if (options.json) printJson(io, result);
  else describeStatus(result, found.key, io, options);
  return result.status === 'valid' ? 0 : 1;
}

function describeStatus(result: StatusResult, key: TokenCacheKey, io: IO, options: StatusOptions): void {
  const r = createRenderer(io, options);
  const who = key.profile !== undefined || key.clientId !== undefined ? describeKey(key) : result.client_id ? `client ${result.client_id}` : '';
  const login = loginLine(key, result);
  if (result.status === 'absent') {
    io.stderr.write(`Not logged in${who ? ` (${who})` : ''}: no tokens are cached. Log in with: ${login}\n`);
    return;
  }
  const where = result.issuer ?? result.token_endpoint ?? '';
  r.line(
    `${result.status === 'valid' ? 'Logged in' : 'Login expired'}: ${who.includes(where) ? who : `${who} at ${where}`}${result.subject !== undefined ? ` as ${result.subject}` : ''}`,
    result.status === 'valid' ? 'green' : 'yellow',
  );
  const lines = [`  access token: ${expiryText(result)}`];
  if (result.scope) lines.push(`  scope: ${result.scope}`);
  lines.push(`  refresh token: ${result.refresh_token ? 'cached' : 'none'}; ID token: ${result.id_token ? 'cached' : 'none'}`);
  lines.push(`  kept in: ${result.kept_in === 'keyring' ? 'the OS keyring (the rest in the cache file)' : 'the cache file'}`);
  if (result.status === 'expired') {
    lines.push(result.refresh_token ? `  \`oauthctl token${key.profile !== undefined ? ` --profile ${key.profile}` : ''}\` will refresh it` : `  log in again: ${login}`);
  }
  for (const line of lines) r.line(line);
}

/**
 * The `login` line that logs in again as the cached login did: its profile, else its server, client
 * and scope (a client secret, if any, comes from --client-secret or OAUTHCTL_CLIENT_SECRET).
 */
export function loginLine(key: TokenCacheKey, result: StatusResult): string {
  if (key.profile !== undefined) return `oauthctl login --profile ${key.profile}`;
  const issuer = result.issuer ?? key.issuer;
  const tokenEndpoint = result.token_endpoint ?? key.tokenEndpoint;
  const flags: string[] = [];
  if (issuer !== undefined) flags.push(`--issuer ${issuer}`);
  else if (tokenEndpoint?.endsWith('/token')) flags.push(`--auth-url ${serverOf({ tokenEndpoint })}`);
  else if (tokenEndpoint !== undefined) flags.push(`--token-endpoint ${tokenEndpoint}`);
  const clientId = result.client_id ?? key.clientId;
  if (clientId !== undefined) flags.push(`--client-id ${clientId}`);
  if (result.scope) flags.push(`--scope ${/^[\w.:/-]+$/.test(result.scope) ? result.scope : `'${result.scope.replace(/'/g, "'\\''")}'`}`);
  return ['oauthctl login', ...flags].join(' ');
}

/** `valid, expires in 4 min`, `expired 2 h ago`, `valid (the server gave no expiry)`. */
function expiryText(result: StatusResult): string {
  if (result.expires_in === undefined) return 'valid (the server gave no expiry)';
  const when = formatRelative(result.expires_in * 1000);
  return result.status === 'valid' ? `valid, expires ${when}` : `expired ${when === 'now' ? 'just now' : when}`;
}

/** `status --all`, as `gh auth status`: every cached login, one line each; exit 0 whatever their state. */
async function runStatusAll(options: StatusOptions, io: IO, now: () => number): Promise<number> {
  const cache = openTokenCache(io.env, { now });
  const results = (await listCachedTokens(cache)).map(({ entry }) => statusOf(entry, now()));
  if (options.json) {
    printJson(io, results);
    return 0;
  }
  if (results.length === 0) {
    io.stderr.write('No logins are cached. Log in with: oauthctl login\n');
    return 0;
  }
  for (const r of results) {
    const name = r.profile !== undefined ? `profile ${r.profile}` : (serverOf({ issuer: r.issuer, tokenEndpoint: r.token_endpoint }) ?? '?');
    const fields = [
      name,
      `client ${r.client_id ?? '?'}`,
      r.subject !== undefined ? `subject ${r.subject}` : 'subject unknown',
      `access token ${expiryText(r)}`,
      `scope ${r.scope ?? '(none)'}`,
      `kept in ${r.kept_in ?? 'file'}`,
    ];
    io.stdout.write(`${escapeTerminal(fields.join('  '))}\n`);
  }
  return 0;
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('status').description('Tell whether a valid token is cached (exit 0) or a login is needed (exit 1), in words on stderr or as JSON.');
  addCachedLoginOptions(cmd)
    .option('--all', 'every cached login, one line each (profile or server, client, subject, expiry, scope); exit 0')
    .option('--json', 'print {"status": "valid"|"expired"|"absent", "expires_at", "expires_in", "scope", ...} (with --all: an array)');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl status --profile work
  $ oauthctl status --profile work || oauthctl login --profile work
  $ oauthctl status --all
  $ oauthctl status --profile mock --json`,
    )
    .action(async (options: StatusOptions, command: Command) => {
      setExitCode(command, await runStatus(options, io));
    });
}
