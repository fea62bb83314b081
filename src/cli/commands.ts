import type { Command } from 'commander';
import type { IO } from '../output/io.js';

export interface CommandModule {
  register(program: Command, io: IO): void;
}

export interface Entry {
  summary: string;
  load(): Promise<CommandModule>;
}

/**
 * Every command but `completion`, by name: its one-line summary, and its module, loaded only when it
 * runs. `completion` describes these, so main.ts adds it and this table never imports it.
 */
export const COMMANDS: Record<string, Entry> = {
  pkce: { summary: 'create a PKCE code verifier and challenge, or check a given verifier', load: () => import('./pkce.js') },
  url: { summary: 'print the authorization request URL', load: () => import('./url.js') },
  login: { summary: 'run the whole authorization-code flow through a browser and a loopback listener', load: () => import('./login.js') },
  exchange: { summary: 'exchange an authorization code for tokens', load: () => import('./exchange.js') },
  refresh: { summary: 'use a refresh token to get new tokens', load: () => import('./refresh.js') },
  call: { summary: 'call a protected API with a bearer token', load: () => import('./call.js') },
  'serve-mock': { summary: 'run the built-in mock authorization server', load: () => import('./serve-mock.js') },
  demo: { summary: 'run login --pkce against the built-in mock, then call its API', load: () => import('./demo.js') },
  profile: { summary: 'manage named profiles of flow options (list, show, add, remove)', load: () => import('./profile.js') },
  token: { summary: 'print a valid cached access token, refreshing it first when it has expired', load: () => import('./token.js') },
  status: { summary: 'tell whether a cached login is valid (exit 0) or a login is needed (exit 1)', load: () => import('./status.js') },
  logout: { summary: 'revoke the cached tokens (RFC 7009) and forget them', load: () => import('./logout.js') },
  listen: { summary: 'run only the loopback redirect listener and explain what arrives', load: () => import('./listen.js') },
  decode: { summary: "show a JWT's header and claims; --verify checks it against the issuer's keys", load: () => import('./decode.js') },
  'client-credentials': { summary: 'get a token for the client itself (client credentials grant, RFC 6749 section 4.4)', load: () => import('./client-credentials.js') },
  'token-exchange': { summary: 'exchange a token for another: delegation, impersonation, another audience (RFC 8693)', load: () => import('./token-exchange.js') },
  introspect: { summary: 'ask the server whether a token is active and what it stands for (RFC 7662)', load: () => import('./introspect.js') },
  userinfo: { summary: "show the user's claims from the userinfo endpoint (OpenID Connect Core 5.3)", load: () => import('./userinfo.js') },
  revoke: { summary: 'revoke a token at the server (RFC 7009)', load: () => import('./revoke.js') },
  audit: { summary: "probe an authorization server's security properties through headless logins (CI)", load: () => import('./audit.js') },
};

/** `completion`'s one-line summary, for main.ts's table and for the scripts it prints. */
export const COMPLETION_SUMMARY = 'print a shell completion script (bash, zsh, fish)';
