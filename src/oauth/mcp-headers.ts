/**
 * The request headers of MCP's Streamable HTTP transport in the 2026-07-28 revision (SEP-2243,
 * basic/transports/streamable-http, Request Metadata): `Mcp-Method`, `Mcp-Name`, and the
 * `Mcp-Param-{Name}` headers a tool's `inputSchema` designates with `x-mcp-header`, with the Base64
 * sentinel encoding of values that are not plain header text. Pure: shared by `oauthctl mcp` and the mock.
 */
import { isJsonObject } from './json.js';

/** The methods whose `Mcp-Name` mirrors a body field (Standard Request Headers). */
export const MCP_NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'resources/read': 'uri', 'prompts/get': 'name' };

/** RFC 9110 section 5.6.2: tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SENTINEL = /^=\?base64\?(.*)\?=$/;

/**
 * Value Encoding: visible ASCII and inner spaces go as they are; anything else (non-ASCII, control
 * characters, leading or trailing whitespace, or text that looks like the sentinel) as
 * `=?base64?{Base64 of the UTF-8}?=`.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) || value === '';
  return plain && !SENTINEL.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The value a header carries, the sentinel decoded; undefined when the sentinel's Base64 is not valid. */
export function decodeHeaderValue(value: string): string | undefined {
  const m = SENTINEL.exec(value);
  if (m === null) return value;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(m[1]!) || m[1]!.length % 4 !== 0) return undefined;
  return Buffer.from(m[1]!, 'base64').toString('utf8');
}

/** A parameter mirrored into a header: the chain of `properties` keys leading to it, and the header's name part. */
export interface HeaderParam {
  path: string[];
  name: string;
  type: 'string' | 'integer' | 'boolean';
}

/**
 * The `x-mcp-header` annotations of a tool's inputSchema (Schema Extension), or why the declaration is
 * invalid: an empty or non-token name, a name used twice (case-insensitively), a type other than
 * string, integer or boolean, or an annotation not statically reachable through `properties` alone.
 */
export function headerParams(inputSchema: unknown): { params: HeaderParam[] } | { invalid: string } {
  const params: HeaderParam[] = [];
  const reachable = new Set<unknown>();
  const walk = (schema: Record<string, unknown>, path: string[]): string | undefined => {
    reachable.add(schema);
    if (!isJsonObject(schema.properties)) return undefined;
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (!isJsonObject(sub)) continue;
      const here = [...path, key];
      if ('x-mcp-header' in sub) {
        const name = sub['x-mcp-header'];
        if (typeof name !== 'string' || name === '') return `x-mcp-header of ${here.join('.')} is empty`;
        if (!TOKEN.test(name)) return `x-mcp-header ${JSON.stringify(name)} of ${here.join('.')} is not an HTTP field-name token (RFC 9110 section 5.1)`;
        if (sub.type !== 'string' && sub.type !== 'integer' && sub.type !== 'boolean')
          return `x-mcp-header ${JSON.stringify(name)} is on ${here.join('.')} of type ${JSON.stringify(sub.type)}: only string, integer and boolean may be mirrored`;
        if (params.some((p) => p.name.toLowerCase() === name.toLowerCase())) return `x-mcp-header ${JSON.stringify(name)} is used twice (case-insensitively)`;
        params.push({ path: here, name, type: sub.type });
      }
      const inner = walk(sub, here);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  if (!isJsonObject(inputSchema)) return { params };
  const invalid = walk(inputSchema, []);
  if (invalid !== undefined) return { invalid };
  // An annotation anywhere else (under items, oneOf, $defs, ...) makes the declaration invalid.
  const stray = (value: unknown): boolean =>
    Array.isArray(value) ? value.some(stray) : isJsonObject(value) && ((!reachable.has(value) && 'x-mcp-header' in value) || Object.values(value).some(stray));
  if (stray(inputSchema)) return { invalid: 'an x-mcp-header is not reachable through properties alone (under items, a composition, a condition or $ref)' };
  return { params };
}

/** The Mcp-Param-{Name} headers of a call's arguments: a parameter without a value (absent or null) has none. */
export function paramHeaders(params: readonly HeaderParam[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) {
    let value: unknown = args;
    for (const key of p.path) value = isJsonObject(value) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    out[`mcp-param-${p.name.toLowerCase()}`] = encodeHeaderValue(typeof value === 'string' ? value : String(value));
  }
  return out;
}

/** Mcp-Method, and Mcp-Name for the methods that name something (Standard Request Headers). */
export function standardHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = { 'mcp-method': method };
  const source = MCP_NAME_SOURCE[method];
  const name = source === undefined ? undefined : params?.[source];
  if (typeof name === 'string') out['mcp-name'] = encodeHeaderValue(name);
  return out;
}
