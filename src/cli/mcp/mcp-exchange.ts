import { FlowError } from '../../errors.js';
import type { McpAnswer, McpSession } from '../../client/mcp/transport.js';
import { isJsonObject } from '../../oauth/json.js';
import { headerParams, paramHeaders, type HeaderParam } from '../../oauth/mcp-headers.js';
import { inputRequired, resultType } from '../../oauth/mcp-input.js';
import {
  HEADER_MISMATCH,
  MCP_MODERN_VERSION,
  MCP_PROTOCOL_VERSION,
  MCP_SUPPORTED_VERSIONS,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
  type JsonRpcError,
} from '../../oauth/mcp-jsonrpc.js';
import { escapeForStream, escapeLogValue } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import { jsonText, type Renderer } from '../../output/render.js';
import { answerInput } from './mcp-input.js';

export interface ExchangeOptions {
  /** --mcp-version: the one revision to speak; by default the newest, falling back as the server needs. */
  mcpVersion?: string | undefined;
  /** --input: the responses to the server's input requests, by key. */
  input?: Record<string, unknown> | undefined;
  json?: boolean | undefined;
  verbose?: boolean | undefined;
}

/** Sends one HTTP request of the exchange: the command line answers a 401 or 403 there with an authorization. */
export type Send = (what: string, call: () => Promise<McpAnswer>) => Promise<McpAnswer>;

export interface ExchangeContext {
  session: McpSession;
  renderer: Renderer;
  io: IO;
  send: Send;
}

/** Rounds of input_required answered for one request (SEP-2322: a client bounds them). */
const MAX_INPUT_ROUNDS = 8;
/** Pages of tools/list read to find a tool's declaration before calling it. */
const MAX_TOOL_PAGES = 10;
const MODERN_SPEC = 'MCP 2026-07-28, basic/transports/streamable-http';

/** A 2026-07-28 request the server answered as a server of an earlier revision would: the version to speak with initialize instead. */
class Legacy {
  constructor(
    readonly reason: string,
    readonly version: string = MCP_PROTOCOL_VERSION,
  ) {}
}

/**
 * METHOD on the MCP server, in the revision the server speaks: 2026-07-28 first (or the one
 * --mcp-version names), falling back to the initialize handshake when the server answers the first
 * 2026-07-28 request with a 4xx that is not one of that revision's own errors (2026-07-28
 * basic/versioning, Backward Compatibility). stdout: the method's result; the exit code returned.
 */
export async function exchange(method: string, params: Record<string, unknown> | undefined, options: ExchangeOptions, ctx: ExchangeContext): Promise<number> {
  const { renderer, session } = ctx;
  const forced = options.mcpVersion;
  let legacyVersion = forced ?? MCP_PROTOCOL_VERSION;
  if (forced === undefined || forced === MCP_MODERN_VERSION) {
    renderer.step(`MCP ${MCP_MODERN_VERSION} (${forced ? 'as --mcp-version asks' : 'the newest revision oauthctl speaks; --mcp-version forces another'}): ${method}, stateless (basic/versioning)`);
    session.useModern();
    const outcome = await modern(method, params, options, ctx);
    if (!(outcome instanceof Legacy)) return outcome;
    renderer.info(`${outcome.reason}: the server speaks an earlier revision; falling back to the initialize handshake (${MODERN_SPEC}, Backward Compatibility)`);
    legacyVersion = outcome.version;
  }
  return legacy(method, params, legacyVersion, options, ctx);
}

/** The method in 2026-07-28: the result, or Legacy when the server's first answer says it speaks an earlier revision. */
async function modern(method: string, params: Record<string, unknown> | undefined, options: ExchangeOptions, ctx: ExchangeContext): Promise<number | Legacy> {
  let headers: Record<string, string> = {};
  let first = true;
  if (method === 'tools/call') {
    const name = String(params?.name);
    const found = await toolDeclaration(name, options, ctx);
    if (found instanceof Legacy || typeof found === 'number') return found;
    first = false;
    if ('invalid' in found) {
      ctx.io.stderr.write(
        `oauthctl: the MCP server declares the tool ${escapeLogValue(name.slice(0, 100))} with an invalid x-mcp-header (${escapeLogValue(found.invalid)}): not called (2026-07-28 server/tools, x-mcp-header)\n`,
      );
      return 1;
    }
    headers = paramHeaders(found.params, params?.arguments);
  }
  let sent = params;
  for (let round = 0; ; round++) {
    const answer = await modernRequest(method, sent, headers, first, options, ctx);
    if (answer instanceof Legacy || typeof answer === 'number') return answer;
    first = false;
    const result = answer;
    if (resultType(result) !== 'input_required') return printResult(method, result, options, ctx);
    const asked = inputRequired(result);
    if (asked === undefined) throw new FlowError(`the MCP server's input_required answer to ${method} is malformed`, 'run with --verbose to see it (2026-07-28 basic/patterns/mrtr)');
    if (round >= MAX_INPUT_ROUNDS) throw new FlowError(`the MCP server still asks for input after ${MAX_INPUT_ROUNDS} rounds: giving up`, '2026-07-28 basic/patterns/mrtr');
    const inputResponses: Record<string, unknown> = {};
    for (const request of asked.requests) {
      ctx.renderer.info(`the server asks for input: ${escapeLogValue(request.key.slice(0, 100))} (${escapeLogValue(request.method.slice(0, 60))}) (SEP-2322)`);
      inputResponses[request.key] = await answerInput(request, options.input, ctx.io, options.json);
    }
    // SEP-2322: the same request again, with the responses and the requestState exactly as it came (none when none came).
    const { requestState: _previous, inputResponses: _responses, ...original } = params ?? {};
    sent = { ...original, inputResponses, ...(asked.requestState !== undefined && { requestState: asked.requestState }) };
    ctx.renderer.step(`MCP ${method} again with the input (round ${round + 2})`);
  }
}

/**
 * One 2026-07-28 request: its result, Legacy for the first request of a server of an earlier
 * revision, or the exit code of a failure. An UnsupportedProtocolVersionError naming 2026-07-28 is
 * retried once; one naming only earlier revisions is a fallback to the newest of them oauthctl speaks.
 */
async function modernRequest(
  method: string,
  params: Record<string, unknown> | undefined,
  headers: Record<string, string>,
  first: boolean,
  options: ExchangeOptions,
  ctx: ExchangeContext,
): Promise<unknown | Legacy | number> {
  let retried = false;
  for (;;) {
    ctx.renderer.info(`POST ${ctx.session.url} (MCP-Protocol-Version ${MCP_MODERN_VERSION}, Mcp-Method ${method})`);
    const answer = await ctx.send(method, () => ctx.session.request(method, params, headers));
    if (answer.response !== undefined) {
      if (answer.response.error !== undefined) return failed(ctx.io, method, answer.response.error);
      return answer.response.result;
    }
    const error = answer.error;
    if (error?.code === UNSUPPORTED_PROTOCOL_VERSION) {
      const supported = isJsonObject(error.data) && Array.isArray(error.data.supported) ? error.data.supported.filter((v): v is string => typeof v === 'string') : [];
      if (supported.includes(MCP_MODERN_VERSION) && !retried) {
        retried = true;
        ctx.renderer.info(`the server answered UnsupportedProtocolVersionError naming ${MCP_MODERN_VERSION} among its versions: sending again (2026-07-28 basic/versioning)`);
        continue;
      }
      const older = MCP_SUPPORTED_VERSIONS.find((v) => supported.includes(v));
      if (older !== undefined && options.mcpVersion === undefined)
        return new Legacy(`the server answered UnsupportedProtocolVersionError naming ${supported.slice(0, 5).join(', ').slice(0, 100)}`, older);
      throw new FlowError(
        `the MCP server does not speak ${MCP_MODERN_VERSION}: it speaks ${escapeLogValue(supported.slice(0, 10).join(', ').slice(0, 200)) || 'no revision it names'}`,
        options.mcpVersion === undefined ? 'oauthctl speaks none of them' : `leave --mcp-version out, or give one of them`,
      );
    }
    const modernError = error !== undefined && (error.code === HEADER_MISMATCH || error.code === MISSING_REQUIRED_CLIENT_CAPABILITY || (answer.status === 404 && error.code === -32601));
    // Backward Compatibility: a 4xx without a recognized 2026-07-28 error to the first request is a server of an earlier revision.
    if (first && options.mcpVersion === undefined && [400, 404, 405].includes(answer.status) && !modernError)
      return new Legacy(`HTTP ${answer.status} to a ${MCP_MODERN_VERSION} request without a ${MCP_MODERN_VERSION} error`);
    throw httpFailure(method, answer, options.verbose);
  }
}

/** tools/list until the tool is found: its x-mcp-header parameters, or why its declaration is invalid (none for a tool not listed). */
async function toolDeclaration(name: string, options: ExchangeOptions, ctx: ExchangeContext): Promise<{ params: HeaderParam[] } | { invalid: string } | Legacy | number> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await modernRequest('tools/list', cursor === undefined ? undefined : { cursor }, {}, page === 0, options, ctx);
    if (result instanceof Legacy || typeof result === 'number') return result;
    const tools = isJsonObject(result) && Array.isArray(result.tools) ? result.tools : [];
    const tool = tools.find((t): t is Record<string, unknown> => isJsonObject(t) && t.name === name);
    if (tool !== undefined) return headerParams(tool.inputSchema);
    cursor = isJsonObject(result) && typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (cursor === undefined) break;
  }
  ctx.renderer.info(`tools/list does not list ${escapeLogValue(name.slice(0, 100))}: called without custom headers`);
  return { params: [] };
}

/** The method in an earlier revision: initialize, notifications/initialized, then METHOD, the server's elicitations answered. */
async function legacy(method: string, params: Record<string, unknown> | undefined, version: string, options: ExchangeOptions, ctx: ExchangeContext): Promise<number> {
  const { session, renderer, send, io } = ctx;
  session.onServerRequest = async (request) => {
    if (request.method !== 'elicitation/create') return { error: { code: -32601, message: `oauthctl does not answer ${request.method.slice(0, 60)}` } };
    renderer.info('the server asks for input: elicitation/create (basic/client/elicitation)');
    return { result: await answerInput({ key: 'elicitation/create', method: request.method, params: request.params }, options.input, io, options.json) };
  };
  // basic/transports, Session Management: a 404 to a request that carried the session id means the
  // session has ended; a new one is started, once (a server that forgets every session is not chased).
  let restarted = false;
  const ended = (answer: McpAnswer, what: string): boolean => {
    if (answer.status !== 404 || !session.hasSessionId || restarted) return false;
    restarted = true;
    renderer.step(`HTTP 404 to ${what} with the session id: the session has ended, starting a new one (basic/transports, Session Management)`);
    session.forgetSession();
    return true;
  };
  const open = async (): Promise<'open' | 'ended' | number> => {
    renderer.step(`MCP initialize, offering ${version} (basic/lifecycle)`);
    renderer.info(`POST ${session.url}`);
    const init = await send('initialize', () => session.initialize(version));
    if (init.response === undefined) throw httpFailure('initialize', init, options.verbose);
    if (init.response.error !== undefined) return failed(io, 'initialize', init.response.error);
    renderer.ok(`protocol version ${session.negotiatedVersion}`);
    const notified = await send('notifications/initialized', () => session.notify('notifications/initialized'));
    if (ended(notified, 'notifications/initialized')) return 'ended';
    if (notified.status < 200 || notified.status >= 300) throw httpFailure('notifications/initialized', notified, options.verbose);
    return 'open';
  };
  let opened = await open();
  if (opened === 'ended') opened = await open();
  if (typeof opened === 'number') return opened;
  // Given an answer to an elicitation, the server's GET stream is listened to as well during the call: a
  // server may send its elicitation there rather than on the call's own stream (basic/transports).
  const listening = options.input?.['elicitation/create'] !== undefined ? await session.listen() : undefined;
  let sent: McpAnswer;
  try {
    renderer.step(`MCP ${method}`);
    sent = await send(method, () => session.request(method, params));
    if (ended(sent, method)) {
      // The server refused the request for its session, before running it: sent again in the new one.
      const again = await open();
      if (typeof again === 'number') return again;
      renderer.step(`MCP ${method}`);
      sent = await send(method, () => session.request(method, params));
    }
  } finally {
    listening?.stop();
  }
  if (sent.response === undefined) throw httpFailure(method, sent, options.verbose);
  if (sent.response.error !== undefined) return failed(io, method, sent.response.error);
  return printResult(method, sent.response.result, options, ctx);
}

/**
 * The result on stdout. tools/list in 2026-07-28 leaves out the tools whose x-mcp-header declaration is
 * invalid, each named on stderr (basic/transports/streamable-http, Schema Extension); a tools/call whose
 * result has isError: true is exit 1 (server/tools, Error Handling).
 */
function printResult(method: string, result: unknown, options: ExchangeOptions, ctx: ExchangeContext): number {
  let shown = result;
  if (method === 'tools/list' && ctx.session.isModern && isJsonObject(result) && Array.isArray(result.tools)) {
    const kept = result.tools.filter((tool) => {
      const checked = isJsonObject(tool) ? headerParams(tool.inputSchema) : { params: [] };
      if ('invalid' in checked) ctx.renderer.warn(`the tool ${escapeLogValue(String((tool as { name?: unknown }).name).slice(0, 100))} is left out: ${escapeLogValue(checked.invalid)}`);
      return !('invalid' in checked);
    });
    shown = { ...result, tools: kept };
  }
  const text = jsonText(shown);
  ctx.io.stdout.write(`${options.json ? text : escapeForStream(ctx.io.stdout as { isTTY?: boolean }, text)}\n`);
  if (method === 'tools/call' && isJsonObject(result) && result.isError === true) {
    ctx.io.stderr.write('oauthctl: the tool answered isError: true (its result is on stdout; server/tools, Error Handling)\n');
    return 1;
  }
  return 0;
}

/** A JSON-RPC error answer: one line on stderr, exit 1. */
export function failed(io: IO, what: string, error: JsonRpcError): number {
  // The message is the server's: escaped, on one line, and not endless.
  io.stderr.write(`oauthctl: the MCP server answered ${what} with JSON-RPC error ${error.code}: ${escapeLogValue(error.message.slice(0, 500))}\n`);
  return 1;
}

/** An HTTP failure, with the server's own words (its JSON-RPC error, else its body), escaped and bounded. */
export function httpFailure(what: string, answer: McpAnswer, verbose: boolean | undefined): FlowError {
  const challenge = answer.headers['www-authenticate'];
  const said = answer.error !== undefined ? `JSON-RPC error ${answer.error.code}: ${answer.error.message}` : (answer.body ?? '').trim();
  return new FlowError(
    `the MCP server answered HTTP ${answer.status} to ${what}${challenge ? ` (WWW-Authenticate: ${escapeLogValue(challenge.slice(0, 300))})` : ''}${said ? `: ${escapeLogValue(said.slice(0, 500))}` : ''}`,
    verbose === true ? undefined : 'run with --verbose to see the exchange',
  );
}
