import { jsonRpcRequest, MCP_ACCEPT, MCP_PROTOCOL_VERSION } from '../../oauth/mcp-jsonrpc.js';
import type { HttpClient } from '../http/http.js';
import type { Fetched, FirstAnswer } from '../resources/protected-resource.js';

/**
 * An MCP server answers only POSTs of JSON-RPC (MCP specification 2025-11-25, basic/transports): its 401,
 * with `resource_metadata` and `scope`, comes to a POST of initialize, not to a GET. A URL whose last
 * path segment is `mcp` is taken for one at once; any other URL is asked with a GET first, and one that
 * answers 404, 405 or 406 is asked again with the POST, whose answer counts when it is a 401 or a success.
 */
export async function firstAnswerOf(http: HttpClient, url: string): Promise<{ answer: FirstAnswer; before: Fetched[] }> {
  if (/\/mcp\/?$/.test(new URL(url).pathname)) return { answer: await postInitialize(http, url), before: [] };
  const get = await http.request(url, { headers: { accept: 'application/json' } });
  if (![404, 405, 406].includes(get.status)) return { answer: get, before: [] };
  const post = await postInitialize(http, url);
  if (post.status !== 401 && (post.status < 200 || post.status >= 300)) return { answer: get, before: [] };
  return { answer: post, before: [{ url, status: get.status, note: 'not a 401: asking again as MCP clients do, with a POST of initialize' }] };
}

/** A POST of initialize without a token, as an MCP client's first request. */
export async function postInitialize(http: HttpClient, url: string): Promise<FirstAnswer> {
  const body = JSON.stringify(jsonRpcRequest('initialize', { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'oauthctl', version: '0.1.0' } }, 1));
  const res = await http.request(url, { method: 'POST', headers: { accept: MCP_ACCEPT, 'content-type': 'application/json' }, body });
  return { status: res.status, headers: res.headers, method: 'POST' };
}
