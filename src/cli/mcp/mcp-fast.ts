import { McpSession, type McpAnswer } from '../../client/mcp/transport.js';
import { mcpAuthorization } from '../../client/mcp/dpop-authorization.js';
import { createHttpClient } from '../../client/http/http.js';
import { compareResource } from '../../oauth/resource-metadata.js';
import { MCP_VERSIONS } from '../../oauth/mcp-jsonrpc.js';
import { CliError } from '../../errors.js';
import { escapeTerminal } from '../../output/escape.js';
import { processIO, type IO } from '../../output/io.js';
import { createRenderer } from '../../output/render.js';
import { listCachedTokens, openTokenCache, tokenState } from '../../store/token-cache.js';
import { exchange } from './mcp-exchange.js';
import { parseInput } from './mcp-input.js';
import { methodParams } from './mcp-params.js';

/** A 401 or 403: the command line takes over, and authorizes. */
class NeedsAuthorization extends Error {}

/**
 * `oauthctl mcp URL [METHOD] [NAME] [--arguments A] [--input I] [--mcp-version V] [--json]` with a valid
 * cached login for the server, in a bundle of its own (dist/oauthctl-mcp.cjs, without commander or the
 * flows): the exchange runs (src/cli/mcp/mcp-exchange.ts, both revisions) and the result is printed, as the
 * command line prints it; a DPoP-bound login sends its proofs. Anything else (another option, no valid cached login, a 401
 * or 403) answers undefined, having printed nothing on stdout, and bin/oauthctl.js runs the command
 * line, which starts over and authorizes. Returns the exit code when done.
 */
export async function mcpFromCache(argv: readonly string[], io: IO = processIO()): Promise<number | undefined> {
  if (argv[0] !== 'mcp') return undefined;
  const operands: string[] = [];
  const valued: Record<string, string | undefined> = { '--arguments': undefined, '--input': undefined, '--mcp-version': undefined };
  let json = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg in valued && valued[arg] === undefined && argv[i + 1] !== undefined) valued[arg] = argv[++i];
    else if (arg.startsWith('-')) return undefined;
    else operands.push(arg);
  }
  const [url, method = 'tools/list', name, extra] = operands;
  const mcpVersion = valued['--mcp-version'];
  if (url === undefined || extra !== undefined || !/^https?:\/\//.test(url) || (mcpVersion !== undefined && !MCP_VERSIONS.includes(mcpVersion))) return undefined;
  const http = createHttpClient({ env: io.env });
  try {
    const params = await methodParams(method, name, valued['--arguments']);
    const input = await parseInput(valued['--input']);
    const cache = openTokenCache(io.env);
    const all = await listCachedTokens(cache);
    // The login kept under the resource itself, as `mcp` and `login --protected-resource` keep it,
    // already read (and its ownership checked) by the listing.
    const kept = all.filter(({ keptUnder, entry }) => keptUnder === 'resource' && entry.resource !== undefined);
    const found = kept.find(({ entry }) => entry.resource === url) ?? kept.find(({ entry }) => compareResource(url, entry.resource!) === 'prefix');
    if (found === undefined) return undefined;
    const entry = found.entry;
    const type = (entry.token_type ?? 'Bearer').toLowerCase();
    if (tokenState(entry, cache.now()) === 'expired' || (type !== 'bearer' && type !== 'dpop')) return undefined;
    // A DPoP-bound login (RFC 9449): its key, and the DPoP code, loaded only then; without its key the command line takes over.
    const dpop = type === 'dpop' ? await (await import('../../client/cache/cached-client-keys.js')).dpopSessionOf(entry) : undefined;
    if (type === 'dpop' && dpop === undefined) return undefined;
    const renderer = createRenderer(io);
    const session = new McpSession(http, url, mcpAuthorization({ token: entry.access_token, dpop }, url));
    renderer.info(`Using the ${dpop ? 'DPoP-bound ' : ''}login cached for ${entry.resource}`);
    const send = async (what: string, call: () => Promise<McpAnswer>): Promise<McpAnswer> => {
      let answer = await call();
      // RFC 9449 section 9: the MCP server's nonce, asked for with a 401: the request goes again once with it.
      if (dpop !== undefined && answer.status === 401 && (await import('../../client/flows/dpop.js')).asksForDpopNonce({ ...answer, body: '' })) {
        renderer.info(`HTTP 401 use_dpop_nonce to ${what}: sending it again with the MCP server's DPoP nonce (RFC 9449 section 9)`);
        answer = await call();
      }
      if (answer.status === 401 || answer.status === 403) throw new NeedsAuthorization();
      return answer;
    };
    try {
      return await exchange(method, params, { mcpVersion, input, json }, { session, renderer, io, send });
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      // The method may have run (a tool with effects): said here, never sent again by the command line.
      io.stderr.write(`oauthctl: error: ${escapeTerminal(err.message)}${err.hint ? ` (${escapeTerminal(err.hint)})` : ''}\n`);
      return err.exitCode;
    }
  } catch {
    return undefined;
  } finally {
    await http.close();
  }
}
