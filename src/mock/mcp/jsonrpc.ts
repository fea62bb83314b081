import { isJsonObject, JsonDepthError, parseJson } from '../../oauth/json.js';

/**
 * JSON-RPC 2.0 as MCP's Streamable HTTP transport carries it (MCP 2025-11-25, basic/transports): one
 * message per POST body (batches were removed in 2025-06-18), answered by one JSON body or by an SSE
 * stream whose events carry the messages.
 */
export type JsonRpcId = string | number;

export type McpMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string }
  | { kind: 'response'; id: JsonRpcId; result?: unknown; error?: unknown }
  | { kind: 'invalid'; id: JsonRpcId | null; code: number; message: string };

/** JSON-RPC 2.0 section 5.1's codes. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

const isId = (v: unknown): v is JsonRpcId => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** One message of a POST body: a request, a notification, a response (to a request of the server's), or what is wrong with it. */
export function parseMessage(text: string): McpMessage {
  let value: unknown;
  try {
    value = parseJson(text, 'the JSON-RPC message');
  } catch (err) {
    return { kind: 'invalid', id: null, code: PARSE_ERROR, message: err instanceof JsonDepthError ? err.message : 'the body is not JSON' };
  }
  if (Array.isArray(value)) return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: 'a batch is not supported: send one JSON-RPC message per request (MCP 2025-06-18 and later)' };
  if (!isJsonObject(value) || value.jsonrpc !== '2.0') return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: 'not a JSON-RPC 2.0 message ("jsonrpc": "2.0")' };
  const id = isId(value.id) ? value.id : null;
  if (value.method === undefined && id !== null && ('result' in value || 'error' in value)) return { kind: 'response', id, result: value.result, error: value.error };
  if (typeof value.method !== 'string') return { kind: 'invalid', id, code: INVALID_REQUEST, message: 'the message has no method' };
  if (value.params !== undefined && !isJsonObject(value.params)) return { kind: 'invalid', id, code: INVALID_PARAMS, message: 'params must be an object' };
  if (!('id' in value)) return { kind: 'notification', method: value.method };
  if (id === null) return { kind: 'invalid', id: null, code: INVALID_REQUEST, message: 'the id must be a string or an integer' };
  return { kind: 'request', id, method: value.method, params: value.params ?? {} };
}

export const result = (id: JsonRpcId, value: unknown) => ({ jsonrpc: '2.0', id, result: value });
export const failure = (id: JsonRpcId | null, code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } });

/** One SSE event (HTML Living Standard, server-sent events) carrying a JSON-RPC message: JSON has no raw line break. */
export const sseEvent = (message: unknown): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
