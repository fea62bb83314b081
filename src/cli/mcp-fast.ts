import { McpSession, type McpAnswer } from '../client/mcp/transport.js';
import { createHttpClient } from '../client/http.js';
import { compareResource } from '../oauth/resource-metadata.js';
import { CliError } from '../errors.js';
import { escapeForStream, escapeLogValue, escapeTerminal } from '../output/escape.js';
import { processIO, type IO } from '../output/io.js';
import { createRenderer, jsonText } from '../output/render.js';
import { listCachedTokens, openTokenCache, tokenState } from '../store/token-cache.js';
import { methodParams } from './mcp-params.js';

/**
 * `oauthctl mcp URL [METHOD] [NAME] [--arguments A] [--json]` with a valid cached login for the server,
 * in a bundle of its own (dist/oauthctl-mcp.cjs, without commander or the flows): the session runs and
 * the result is printed, as the command line prints it. Anything else (another option, no valid
 * cached login, a DPoP-bound one, an answer that is not a success) answers undefined, having printed
 * nothing on stdout, and bin/oauthctl.js runs the command line, which starts over and authorizes.
 * Returns the exit code when done.
 */
export async function mcpFromCache(argv: readonly string[], io: IO = processIO()): Promise<number | undefined> {
  if (argv[0] !== 'mcp') return undefined;
  const operands: string[] = [];
  let args: string | undefined;
  let json = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--arguments' && args === undefined && argv[i + 1] !== undefined) args = argv[++i];
    else if (arg.startsWith('-')) return undefined;
    else operands.push(arg);
  }
  const [url, method = 'tools/list', name, extra] = operands;
  if (url === undefined || extra !== undefined || !/^https?:\/\//.test(url)) return undefined;
  const http = createHttpClient({ env: io.env });
  try {
    const params = await methodParams(method, name, args);
    const cache = openTokenCache(io.env);
    const all = await listCachedTokens(cache);
    // The login kept under the resource itself, as `mcp` and `login --protected-resource` keep it,
    // already read (and its ownership checked) by the listing.
    const kept = all.filter(({ keptUnder, entry }) => keptUnder === 'resource' && entry.resource !== undefined);
    const found = kept.find(({ entry }) => entry.resource === url) ?? kept.find(({ entry }) => compareResource(url, entry.resource!) === 'prefix');
    if (found === undefined) return undefined;
    const entry = found.entry;
    if (tokenState(entry, cache.now()) === 'expired' || (entry.token_type ?? 'Bearer').toLowerCase() !== 'bearer') return undefined;
    const renderer = createRenderer(io);
    const session = new McpSession(http, url);
    renderer.info(`Using the login cached for ${entry.resource}`);
    renderer.step('MCP initialize (basic/lifecycle)');
    renderer.info(`POST ${url}`);
    const init = await session.initialize(entry.access_token);
    if (!succeeded(init) || init.response?.error !== undefined) return undefined;
    renderer.ok(`protocol version ${session.negotiatedVersion}`);
    if (!succeeded(await session.notify('notifications/initialized', entry.access_token))) return undefined;
    renderer.step(`MCP ${method}`);
    let answer: McpAnswer;
    try {
      answer = await session.request(method, params, entry.access_token);
    } catch (err) {
      // The method may have run (a tool with effects): said here, never sent again by the command line.
      const hint = err instanceof CliError && err.hint ? ` (${escapeTerminal(err.hint)})` : '';
      io.stderr.write(`oauthctl: error: ${escapeTerminal((err as Error).message)}${hint}\n`);
      return 1;
    }
    if (!succeeded(answer) || answer.response === undefined) return undefined;
    const error = answer.response.error;
    if (error !== undefined) {
      io.stderr.write(`oauthctl: the MCP server answered ${method} with JSON-RPC error ${error.code}: ${escapeLogValue(error.message.slice(0, 500))}\n`);
      return 1;
    }
    const text = jsonText(answer.response.result);
    io.stdout.write(`${json ? text : escapeForStream(io.stdout, text)}\n`);
    return 0;
  } catch {
    return undefined;
  } finally {
    await http.close();
  }
}

const succeeded = (answer: McpAnswer) => answer.status >= 200 && answer.status < 300;
