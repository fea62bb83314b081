import type { Command } from 'commander';
import type { IO } from './io.js';

export interface CommandModule {
  register(program: Command, io: IO): void;
}

interface Entry {
  summary: string;
  load(): Promise<CommandModule>;
}

/** Every command, by name: its one-line summary, and its module, loaded only when it runs. */
export const COMMANDS: Record<string, Entry> = {
  pkce: { summary: 'create a PKCE code verifier and challenge, or check a given verifier', load: () => import('./pkce.js') },
  url: { summary: 'print the authorization request URL', load: () => import('./url.js') },
  login: { summary: 'run the whole authorization-code flow through a browser and a loopback listener', load: () => import('./login.js') },
  exchange: { summary: 'exchange an authorization code for tokens', load: () => import('./exchange.js') },
  refresh: { summary: 'use a refresh token to get new tokens', load: () => import('./refresh.js') },
  call: { summary: 'call a protected API with a bearer token', load: () => import('./call.js') },
  'serve-mock': { summary: 'run the built-in mock authorization server', load: () => import('./serve-mock.js') },
  demo: { summary: 'run login --pkce against the built-in mock, then call its API', load: () => import('./demo.js') },
};
