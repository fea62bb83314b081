import { commandTable, type CommandModule, type CommandName } from './command-table.js';

export { COMPLETION_SUMMARY, type CommandModule, type Entry } from './command-table.js';

/** Each command's module, loaded only when it runs. `completion` describes these, so main.ts adds it and this table never imports it. */
const MODULES: Record<CommandName, () => Promise<CommandModule>> = {
  pkce: () => import('../login/pkce.js'),
  url: () => import('../login/url.js'),
  login: () => import('../login/login.js'),
  exchange: () => import('../login/exchange.js'),
  refresh: () => import('../grants/refresh.js'),
  call: () => import('../inspect/call.js'),
  'serve-mock': () => import('../mock/serve-mock.js'),
  demo: () => import('../mock/demo.js'),
  profile: () => import('../token/profile.js'),
  token: () => import('../token/token.js'),
  credential: () => import('../token/credential.js'),
  status: () => import('../token/status.js'),
  logout: () => import('../token/logout.js'),
  listen: () => import('../inspect/listen.js'),
  decode: () => import('../inspect/decode.js'),
  'client-credentials': () => import('../grants/client-credentials.js'),
  'jwt-bearer': () => import('../grants/jwt-bearer.js'),
  'token-exchange': () => import('../grants/token-exchange.js'),
  introspect: () => import('../inspect/introspect.js'),
  userinfo: () => import('../inspect/userinfo.js'),
  revoke: () => import('../token/revoke.js'),
  audit: () => import('../audit/audit.js'),
  trace: () => import('../inspect/trace.js'),
  discover: () => import('../inspect/discover.js'),
  register: () => import('../login/register.js'),
  mcp: () => import('../mcp/mcp.js'),
};

export const COMMANDS = commandTable((name) => MODULES[name]());
