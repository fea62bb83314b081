import { commandTable, type CommandModule, type CommandName } from './command-table.js';

export { COMPLETION_SUMMARY, type CommandModule, type Entry } from './command-table.js';

/** Each command's module, loaded only when it runs. `completion` describes these, so main.ts adds it and this table never imports it. */
const MODULES: Record<CommandName, () => Promise<CommandModule>> = {
  pkce: () => import('./pkce.js'),
  url: () => import('./url.js'),
  login: () => import('./login.js'),
  exchange: () => import('./exchange.js'),
  refresh: () => import('./refresh.js'),
  call: () => import('./call.js'),
  'serve-mock': () => import('./serve-mock.js'),
  demo: () => import('./demo.js'),
  profile: () => import('./profile.js'),
  token: () => import('./token.js'),
  credential: () => import('./credential.js'),
  status: () => import('./status.js'),
  logout: () => import('./logout.js'),
  listen: () => import('./listen.js'),
  decode: () => import('./decode.js'),
  'client-credentials': () => import('./client-credentials.js'),
  'jwt-bearer': () => import('./jwt-bearer.js'),
  'token-exchange': () => import('./token-exchange.js'),
  introspect: () => import('./introspect.js'),
  userinfo: () => import('./userinfo.js'),
  revoke: () => import('./revoke.js'),
  audit: () => import('./audit.js'),
  trace: () => import('./trace.js'),
  discover: () => import('./discover.js'),
  register: () => import('./register.js'),
  mcp: () => import('./mcp.js'),
};

export const COMMANDS = commandTable((name) => MODULES[name]());
