import type { Command } from 'commander';
import { findCachedLogin, type CachedLoginSelector } from '../client/cached-login.js';
import { describeKey, openTokenCache, tokenState, type CachedTokens, type TokenCacheKey } from '../store/token-cache.js';
import { formatRelative } from '../oauth/jwt.js';
import { createRenderer, printJson } from '../output/render.js';
import { addCachedLoginOptions } from './cached-login-options.js';
import { addCommonOptions, setExitCode, type CommonOptions } from './command.js';
import type { IO } from '../output/io.js';

export interface StatusOptions extends CachedLoginSelector, CommonOptions {
  json?: boolean;
}

export interface StatusResult {
  status: 'valid' | 'expired' | 'absent';
  profile?: string;
  issuer?: string;
  token_endpoint?: string;
  client_id?: string;
  scope?: string;
  /** Seconds since the epoch; absent when the server gave no expiry. */
  expires_at?: number;
  /** Seconds left (negative once expired). */
  expires_in?: number;
  refresh_token: boolean;
  id_token: boolean;
}

export function statusOf(entry: CachedTokens | undefined, nowMs: number): StatusResult {
  if (!entry) return { status: 'absent', refresh_token: false, id_token: false };
  const out: StatusResult = {
    status: tokenState(entry, nowMs) === 'expired' ? 'expired' : 'valid',
    client_id: entry.client_id,
    token_endpoint: entry.token_endpoint,
    refresh_token: entry.refresh_token !== undefined,
    id_token: entry.id_token !== undefined,
  };
  if (entry.profile !== undefined) out.profile = entry.profile;
  if (entry.issuer !== undefined) out.issuer = entry.issuer;
  if (entry.scope !== undefined) out.scope = entry.scope;
  if (entry.expires_at !== undefined) {
    out.expires_at = entry.expires_at;
    out.expires_in = entry.expires_at - Math.floor(nowMs / 1000);
  }
  return out;
}

/** Whether a login is needed: exit 0 when a valid token is cached, 1 when it expired or none is cached. */
export async function runStatus(options: StatusOptions, io: IO, now: () => number = Date.now): Promise<number> {
  const found = await findCachedLogin(options, io.env, openTokenCache(io.env, { now }));
  const result = statusOf(found.entry, now());
  if (options.json) printJson(io, result);
  else describeStatus(result, found.key, io, options);
  return result.status === 'valid' ? 0 : 1;
}

function describeStatus(result: StatusResult, key: TokenCacheKey, io: IO, options: StatusOptions): void {
  const r = createRenderer(io, options);
  const who = key.profile !== undefined || key.clientId !== undefined ? describeKey(key) : result.client_id ? `client ${result.client_id}` : '';
  const login = key.profile !== undefined ? `oauthctl login --profile ${key.profile}` : 'oauthctl login';
  if (result.status === 'absent') {
    io.stderr.write(`Not logged in${who ? ` (${who})` : ''}: no tokens are cached. Log in with: ${login}\n`);
    return;
  }
  const where = result.issuer ?? result.token_endpoint ?? '';
  const expiry =
    result.expires_in === undefined
      ? 'the server gave no expiry'
      : result.status === 'valid'
        ? `expires ${formatRelative(result.expires_in * 1000)}`
        : `expired ${formatRelative(result.expires_in * 1000)}`;
  r.line(`${result.status === 'valid' ? 'Logged in' : 'Login expired'}: ${who.includes(where) ? who : `${who} at ${where}`}`, result.status === 'valid' ? 'green' : 'yellow');
  const lines = [`  access token: ${result.status}, ${expiry}`];
  if (result.scope) lines.push(`  scope: ${result.scope}`);
  lines.push(`  refresh token: ${result.refresh_token ? 'cached' : 'none'}; ID token: ${result.id_token ? 'cached' : 'none'}`);
  if (result.status === 'expired') {
    lines.push(result.refresh_token ? `  \`oauthctl token${key.profile !== undefined ? ` --profile ${key.profile}` : ''}\` will refresh it` : `  log in again: ${login}`);
  }
  for (const line of lines) r.line(line);
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('status').description('Tell whether a valid token is cached (exit 0) or a login is needed (exit 1), in words on stderr or as JSON.');
  addCachedLoginOptions(cmd).option('--json', 'print {"status": "valid"|"expired"|"absent", "expires_at", "expires_in", "scope", ...}');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl status --profile work
  $ oauthctl status --profile work || oauthctl login --profile work
  $ oauthctl status --json`,
    )
    .action(async (options: StatusOptions, command: Command) => {
      setExitCode(command, await runStatus(options, io));
    });
}
