import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { errorDescription, sendJson, type Exchange } from '../core/http/http.js';
import { isJsonObject } from '../../oauth/json.js';
import { decodeHeaderValue, headerParams, MCP_NAME_SOURCE } from '../../oauth/mcp-headers.js';
import { HEADER_MISMATCH, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, UNSUPPORTED_PROTOCOL_VERSION } from '../../oauth/mcp-jsonrpc.js';
import { failure, INVALID_PARAMS, type JsonRpcId, type McpMessage } from './jsonrpc.js';
import { GREET_ELICITATION, greeting as greetingOf, TOOLS } from './tools.js';

/** The revisions without initialize (2026-07-28 basic/versioning, "modern"). */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];

/** Whether a POST speaks a modern revision: its MCP-Protocol-Version header names one, or its params carry the `_meta` version. */
export function isModernRequest(ex: Exchange, message: McpMessage): boolean {
  const header = ex.req.headers['mcp-protocol-version'];
  if (typeof header === 'string' && MODERN_VERSIONS.includes(header)) return true;
  return message.kind === 'request' && isJsonObject(message.params._meta) && message.params._meta[META_PROTOCOL_VERSION] !== undefined;
}

function refuse(ex: Exchange, id: JsonRpcId | null, code: number, text: string, data?: unknown): undefined {
  ex.log.error = code === UNSUPPORTED_PROTOCOL_VERSION ? 'unsupported_protocol_version' : code === HEADER_MISMATCH ? 'header_mismatch' : 'invalid_request';
  ex.log.errorDescription = errorDescription(text);
  sendJson(ex.res, 400, failure(id, code, text, data));
  return undefined;
}

const header = (ex: Exchange, name: string): string | undefined => {
  const value = ex.req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * A 2026-07-28 request checked as its Streamable HTTP binding says (Request Metadata, Server
 * Validation): the version, in the header and in `_meta`, one the endpoint speaks; the `_meta` the
 * revision requires; `Mcp-Method`, `Mcp-Name` and a tool's `Mcp-Param-*` headers matching the body.
 * The version when the request may go on; undefined when it was refused (400 sent).
 */
export function checkModernRequest(ex: Exchange, message: Extract<McpMessage, { kind: 'request' }>, supported: readonly string[]): string | undefined {
  const { id, method, params } = message;
  const version = header(ex, 'mcp-protocol-version');
  if (version === undefined)
    return refuse(ex, id, HEADER_MISMATCH, 'the MCP-Protocol-Version header is required on every 2026-07-28 request (basic/transports/streamable-http, Protocol Version Header)');
  const modern = supported.filter((v) => MODERN_VERSIONS.includes(v));
  if (!modern.includes(version)) return refuse(ex, id, UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', { supported, requested: version.slice(0, 40) });
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const missing = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES].filter((k) => meta[k] === undefined);
  if (missing.length > 0) return refuse(ex, id, INVALID_PARAMS, `Invalid params: _meta lacks ${missing.join(', ')} (2026-07-28 basic/index, _meta)`);
  if (meta[META_PROTOCOL_VERSION] !== version) return refuse(ex, id, HEADER_MISMATCH, 'Header mismatch: MCP-Protocol-Version does not match _meta io.modelcontextprotocol/protocolVersion');
  const sentMethod = header(ex, 'mcp-method');
  if (sentMethod === undefined) return refuse(ex, id, HEADER_MISMATCH, `Header mismatch: the Mcp-Method header is required (it must be ${JSON.stringify(method.slice(0, 60))})`);
  if (sentMethod !== method)
    return refuse(ex, id, HEADER_MISMATCH, `Header mismatch: Mcp-Method ${JSON.stringify(sentMethod.slice(0, 60))} does not match the body's method ${JSON.stringify(method.slice(0, 60))}`);
  const source = MCP_NAME_SOURCE[method];
  if (source !== undefined && typeof params[source] === 'string') {
    const sentName = header(ex, 'mcp-name');
    if (sentName === undefined) return refuse(ex, id, HEADER_MISMATCH, `Header mismatch: the Mcp-Name header is required for ${method}`);
    if (decodeHeaderValue(sentName) !== params[source]) return refuse(ex, id, HEADER_MISMATCH, `Header mismatch: Mcp-Name does not match the body's params.${source}`);
  }
  if (method === 'tools/call') {
    const tool = TOOLS.find((t) => t.name === params.name);
    const declared = tool === undefined ? { params: [] } : headerParams(tool.inputSchema);
    for (const p of 'params' in declared ? declared.params : []) {
      let value: unknown = params.arguments;
      for (const key of p.path) value = isJsonObject(value) ? value[key] : undefined;
      if (value === undefined || value === null) continue;
      const sent = header(ex, `mcp-param-${p.name.toLowerCase()}`);
      const decoded = sent === undefined ? undefined : decodeHeaderValue(sent);
      const matches = decoded !== undefined && (p.type === 'integer' ? Number(decoded) === value : decoded === String(value));
      if (!matches)
        return refuse(ex, id, HEADER_MISMATCH, `Header mismatch: Mcp-Param-${p.name} ${sent === undefined ? 'is missing' : 'does not match'} the argument ${p.path.join('.')} (x-mcp-header)`);
    }
  }
  return version;
}

/** server/discover (2026-07-28 server/discover): the revisions, capabilities and who the server is. */
export function discoverResult(supported: readonly string[]): Record<string, unknown> {
  return {
    resultType: 'complete',
    // 2026-07-28 caching: a listing says how long it may be kept, and by whom (here: not kept, per user).
    ttlMs: 0,
    cacheScope: 'private',
    supportedVersions: supported,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'oauthctl-mock', title: 'oauthctl mock MCP server', version: '1.0.0' },
  };
}

/** The key signing `greet`'s requestState, one per configuration (a restart forgets every state given). */
const keys = new WeakMap<object, Buffer>();
const keyOf = (config: object): Buffer => {
  let key = keys.get(config);
  if (!key) keys.set(config, (key = randomBytes(32)));
  return key;
};
/** How long a requestState is taken back. */
const STATE_LIFETIME_MS = 10 * 60_000;

function signState(config: object, payload: string): string {
  return `${payload}.${createHmac('sha256', keyOf(config)).update(payload).digest('base64url')}`;
}

function stateValid(config: object, state: unknown, subject: string): boolean {
  if (typeof state !== 'string' || state.length > 1024) return false;
  const dot = state.lastIndexOf('.');
  const payload = state.slice(0, dot);
  const mac = Buffer.from(state.slice(dot + 1));
  const expected = Buffer.from(signState(config, payload).slice(dot + 1));
  if (dot < 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) return false;
  const [tool, who, until] = Buffer.from(payload, 'base64url').toString('utf8').split('\n');
  return tool === 'greet' && who === subject && Number(until) > Date.now();
}

/**
 * `greet` in 2026-07-28 (SEP-2322): without input, an input_required result asking for a name and a
 * signed requestState (the server keeps nothing); with it, the state checked and the answer used.
 */
export function greetModern(config: object, params: Record<string, unknown>, subject: string): { result: Record<string, unknown> } | { error: string } {
  if (params.inputResponses === undefined) {
    const payload = Buffer.from(`greet\n${subject}\n${Date.now() + STATE_LIFETIME_MS}`).toString('base64url');
    return { result: { resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create', params: GREET_ELICITATION } }, requestState: signState(config, payload) } };
  }
  if (!stateValid(config, params.requestState, subject)) return { error: 'requestState is not one this server gave (or it expired): call greet again without inputResponses' };
  const responses = isJsonObject(params.inputResponses) ? params.inputResponses : {};
  return { result: { resultType: 'complete', ...greetingOf(responses.name) } };
}
