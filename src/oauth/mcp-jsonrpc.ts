/**
 * The framing of MCP over Streamable HTTP (MCP specification 2025-11-25, basic/transports): JSON-RPC
 * 2.0 messages in a JSON body or in the `data:` lines of a text/event-stream (the HTML Living Standard's
 * server-sent events). Pure: shared by the client (`oauthctl mcp`) and the mock's MCP endpoint.
 */
import { jsonNestsDeeperThan } from './json.js';

/** The revision without the initialize handshake: every request carries its version and the client's capabilities (2026-07-28, basic/versioning). */
export const MCP_MODERN_VERSION = '2026-07-28';
/** The newest revision with the initialize handshake, which the client offers there; the server may answer another one it supports (basic/lifecycle). */
export const MCP_PROTOCOL_VERSION = '2025-11-25';
/** The revisions the client accepts in the server's initialize answer. */
export const MCP_SUPPORTED_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** Every revision oauthctl speaks, newest first (--mcp-version). */
export const MCP_VERSIONS: readonly string[] = [MCP_MODERN_VERSION, ...MCP_SUPPORTED_VERSIONS];
/** The `_meta` keys of a 2026-07-28 request (basic/index, _meta). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
/** The protocol's own error codes (2026-07-28 schema): a server that answers one of them speaks the 2026-07-28 revision. */
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** basic/transports: a client's POST accepts both kinds of answer. */
export const MCP_ACCEPT = 'application/json, text/event-stream';
/** A client never needs more messages than this from one POST; a stream with more is refused. */
export const MAX_SSE_MESSAGES = 1000;

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: JsonRpcError;
}

export class McpFramingError extends Error {
  override name = 'McpFramingError';
}

/** A request (with an id) or a notification (without one), JSON-RPC 2.0 section 4. */
export function jsonRpcRequest(method: string, params: Record<string, unknown> | undefined, id?: JsonRpcId): JsonRpcRequest {
  return { jsonrpc: '2.0', ...(id !== undefined && { id }), method, ...(params !== undefined && { params }) };
}

/**
 * The `data` of each event of a text/event-stream body (HTML Living Standard 9.2.6): lines joined by
 * newlines, comments and other fields skipped, an event without data dropped.
 */
export function parseSseData(body: string, maxEvents = MAX_SSE_MESSAGES): string[] {
  const events: string[] = [];
  let data: string[] | undefined;
  const dispatch = () => {
    if (data !== undefined) {
      if (events.length >= maxEvents) throw new McpFramingError(`the event stream has more than ${maxEvents} events`);
      events.push(data.join('\n'));
    }
    data = undefined;
  };
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (data ??= []).push(value);
  }
  dispatch();
  return events;
}

/** The JSON-RPC messages of one HTTP answer: a JSON body (one message or a batch), or an event stream. */
export function parseMcpMessages(contentType: string | undefined, body: string): unknown[] {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const texts = type === 'text/event-stream' ? parseSseData(body) : type === 'application/json' ? [body] : undefined;
  if (texts === undefined) throw new McpFramingError(`the answer is ${type || 'of no content type'}, neither application/json nor text/event-stream`);
  const out: unknown[] = [];
  for (const text of texts) {
    if (text.trim() === '') continue;
    if (jsonNestsDeeperThan(text)) throw new McpFramingError('a message nests too deeply');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new McpFramingError('a message is not JSON');
    }
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
    if (out.length > MAX_SSE_MESSAGES) throw new McpFramingError(`the answer has more than ${MAX_SSE_MESSAGES} messages`);
  }
  return out;
}

/** The response to request `id` among the messages (JSON-RPC 2.0 section 5), checked for its shape. */
export function findResponse(messages: readonly unknown[], id: JsonRpcId): JsonRpcResponse | undefined {
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    const r = m as Record<string, unknown>;
    if (r.id !== id || r.method !== undefined) continue;
    if (r.jsonrpc !== '2.0') throw new McpFramingError('the response is not JSON-RPC 2.0');
    if (r.error !== undefined) {
      const e = r.error as Record<string, unknown>;
      if (typeof e !== 'object' || e === null || typeof e.code !== 'number' || typeof e.message !== 'string') throw new McpFramingError('the error response has no code and message');
      return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) } };
    }
    if (!('result' in r)) throw new McpFramingError('the response has neither result nor error');
    return { jsonrpc: '2.0', id, result: r.result };
  }
  return undefined;
}
