import { isJsonObject } from '../../oauth/json.js';
import type { AccessTokenClaims } from '../core/store/store.js';
import type { McpConfig } from './config.js';

/** The tools of the mock's MCP server (MCP 2025-11-25, server/tools): each a fixed answer about the caller or its input. */
export const TOOLS = [
  {
    name: 'whoami',
    title: 'Who am I',
    description: "The access token's subject, client and scope, as the server sees them.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'echo',
    title: 'Echo',
    description: 'Answers with the text it is given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  },
  {
    name: 'region_echo',
    title: 'Echo, by region',
    description: 'Answers with the text and the region it is given; the region is mirrored into the Mcp-Param-Region header (2026-07-28, x-mcp-header).',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, text: { type: 'string' } },
      required: ['region', 'text'],
      additionalProperties: false,
    },
  },
  {
    name: 'greet',
    title: 'Greet',
    description: 'Asks who to greet (an input_required result in 2026-07-28, an elicitation/create request before), then greets them.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
] as const;

/** The elicitation `greet` sends (basic/client/elicitation): one field, with a default (SEP-1034). */
export const GREET_ELICITATION = {
  message: 'Who should be greeted?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name', default: 'world' } }, required: ['name'] },
};

/** The result of `greet` for the client's answer to the elicitation. */
export function greeting(answer: unknown): Record<string, unknown> {
  const accepted = isJsonObject(answer) && answer.action === 'accept' && isJsonObject(answer.content) && typeof answer.content.name === 'string';
  if (!accepted) return { content: text('nobody to greet: the elicitation was not accepted'), isError: true };
  return { content: text(`Hello, ${(answer.content as { name: string }).name.slice(0, 200)}!`), isError: false };
}

/** The scopes a call of this tool needs: the endpoint's own and the tool's (config mcp.tool_scopes). */
export function toolScopes(config: McpConfig, tool: string): string[] {
  return [...new Set([...config.scopes, ...(config.tools[tool] ?? [])])];
}

export type ToolOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; message: string };

const text = (value: string) => [{ type: 'text', text: value }];

/** tools/call: the result, or why the call is invalid (the JSON-RPC error INVALID_PARAMS). A tool's own failure would be isError. */
export function callTool(name: unknown, args: unknown, claims: AccessTokenClaims): ToolOutcome {
  if (args !== undefined && !isJsonObject(args)) return { ok: false, message: 'arguments must be an object' };
  if (name === 'whoami') {
    const who = { sub: claims.sub, client_id: claims.client_id, scope: claims.scope };
    return { ok: true, result: { content: text(JSON.stringify(who)), structuredContent: who, isError: false } };
  }
  if (name === 'echo') {
    const value = args?.text;
    if (typeof value !== 'string') return { ok: false, message: 'echo needs {"text": "..."}' };
    return { ok: true, result: { content: text(value), isError: false } };
  }
  if (name === 'region_echo') {
    if (typeof args?.text !== 'string' || typeof args.region !== 'string') return { ok: false, message: 'region_echo needs {"region": "...", "text": "..."}' };
    return { ok: true, result: { content: text(`${args.region}: ${args.text}`), structuredContent: { region: args.region, text: args.text }, isError: false } };
  }
  return { ok: false, message: `no tool named ${JSON.stringify(String(name)).slice(0, 80)} (the tools: ${TOOLS.map((t) => t.name).join(', ')})` };
}
