import type { Command } from 'commander';
import type { IO } from '../../output/io.js';

export interface CommandModule {
  register(program: Command, io: IO): void;
}

export interface Entry {
  summary: string;
  load(): Promise<CommandModule>;
}

/**
 * Every command but `completion`, by name, with the one-line summary that `oauthctl --help` lists.
 * This module loads no command: commands.ts adds their modules, and commands-fast.ts the few of the
 * fast bundle (docs/ARCHITECTURE.md, "How the command line starts").
 */
export const SUMMARIES = {
  pkce: 'create a PKCE code verifier and challenge, or check a given verifier',
  url: 'print the authorization request URL',
  login: 'run the whole authorization-code flow through a browser and a loopback listener',
  exchange: 'exchange an authorization code for tokens',
  refresh: 'use a refresh token to get new tokens',
  call: 'call a protected API with a bearer token',
  'serve-mock': 'run the built-in mock authorization server',
  demo: 'run login --pkce against the built-in mock, then call its API',
  profile: 'manage named profiles of flow options (list, show, add, remove)',
  token: 'print a valid cached access token, refreshing it first when it has expired',
  credential: 'a credential helper for other programs: git (get, store, erase)',
  status: 'tell whether a cached login is valid (exit 0) or a login is needed (exit 1)',
  logout: 'revoke the cached tokens (RFC 7009) and forget them',
  listen: 'run only the loopback redirect listener and explain what arrives',
  decode: "show a JWT's header and claims; --verify checks it against the issuer's keys",
  'client-credentials': 'get a token for the client itself (client credentials grant, RFC 6749 section 4.4)',
  'jwt-bearer': 'get a token with a JWT the workload holds (JWT bearer grant, RFC 7523 section 2.1)',
  'token-exchange': 'exchange a token for another: delegation, impersonation, another audience (RFC 8693)',
  introspect: 'ask the server whether a token is active and what it stands for (RFC 7662)',
  userinfo: "show the user's claims from the userinfo endpoint (OpenID Connect Core 5.3)",
  revoke: 'revoke a token at the server (RFC 7009)',
  audit: "probe an authorization server's security properties through headless logins (CI)",
  trace: 'show a flow recorded with --trace as a sequence diagram (text or HTML); --check lists what looks wrong',
  discover: 'walk the discovery chain of a protected resource or an issuer and say what is inconsistent (RFC 9728, RFC 8414)',
  mcp: 'an MCP client over Streamable HTTP: authorize as the MCP specification says, then list or call tools',
  register: 'register a client at an authorization server (RFC 7591), or delete the kept registration (RFC 7592)',
} as const;

export type CommandName = keyof typeof SUMMARIES;

/** `completion`'s one-line summary, for main.ts's table and for the scripts it prints. */
export const COMPLETION_SUMMARY = 'print a shell completion script (bash, zsh, fish)';

/** The table main.ts builds the program from: each command's summary and how to load its module. */
export function commandTable(load: (name: CommandName) => Promise<CommandModule>): Record<CommandName, Entry> {
  const table = {} as Record<CommandName, Entry>;
  for (const name of Object.keys(SUMMARIES) as CommandName[]) table[name] = { summary: SUMMARIES[name], load: () => load(name) };
  return table;
}
