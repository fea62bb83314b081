import { isJsonObject } from '../../oauth/json.js';
import { parseScope } from '../../oauth/scope.js';
import type { MockState } from '../core/http/http.js';
import { mcpTarget } from '../core/tokens/protected-resources.js';

/**
 * The scope a client registers with when it registers for the MCP server: an MCP client registers with
 * the scope of the first challenge (MCP 2025-11-25, scope selection) and later steps up to a tool's
 * scope, so the mock registers it for every scope of the server (its `scopes_supported`). RFC 7591
 * section 3.2.1 lets a server replace requested metadata; the response says what was registered.
 */
export function registrationForMcp(state: MockState, input: unknown): unknown {
  const { enabled } = state.config.mcp;
  if (!enabled || !isJsonObject(input) || typeof input.scope !== 'string') return input;
  const asked = parseScope(input.scope);
  const all = mcpTarget(state).scopes;
  if (!asked.some((s) => all.includes(s))) return input;
  return { ...input, scope: [...new Set([...asked, ...all])].join(' ') };
}
