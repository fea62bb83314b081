import type { AuditPlan } from '../../plan.js';

/**
 * `audit --plan mcp`: what the MCP specification requires of an MCP server's authorization (the
 * authorization page of the 2025-11-25 and 2026-07-28 revisions, and the transports page's Origin
 * rule), each with the probes that test it. The 2026-07-28 revision's SEP-2207 is a SHOULD: a warning
 * there leaves the requirement unmet, as any probe that did not pass. A requirement the audit could
 * not test for a reason it states (tokens that live too long to wait out their expiry) is "not
 * verified": the verdict stands on what was verified, and says what was not.
 */
export const MCP_PLAN: AuditPlan = {
  name: 'mcp',
  title: 'MCP specification (2025-11-25, 2026-07-28), MCP server',
  untested: 'not verified',
  requirements: [
    { clause: 'authz 2.3', text: 'answers a request without a token with 401 naming resource_metadata (and the scope to ask for)', probes: ['mcp-401-challenge', 'resource-401-metadata'] },
    { clause: 'authz 2.3', text: "serves protected resource metadata whose resource is the server's URL", probes: ['mcp-metadata-resource', 'resource-metadata-match', 'resource-metadata-location'] },
    { clause: 'authz 2.3', text: 'names authorization servers that answer metadata with a matching issuer', probes: ['resource-authorization-servers'] },
    { clause: 'authz 2.6', text: 'takes tokens from the Authorization header only, never the query string', probes: ['mcp-query-token', 'resource-query-token'] },
    {
      clause: 'authz 2.6',
      text: 'validates every token: refuses a malformed, unsigned, foreign-key or foreign-issuer token with 401',
      probes: ['resource-garbage-token', 'resource-alg-none', 'resource-foreign-key', 'resource-other-issuer'],
    },
    { clause: 'authz 2.6', text: 'takes only tokens issued for itself (audience binding, RFC 8707)', probes: ['mcp-token-audience', 'resource-audience'] },
    { clause: 'authz 2.6', text: 'refuses expired, not yet valid and revoked tokens', probes: ['resource-expired-token', 'resource-not-yet-valid', 'resource-revoked-token'] },
    { clause: 'authz 2.7', text: 'answers a token without the needed scope with 403 insufficient_scope naming it', probes: ['resource-insufficient-scope'] },
    // Seen only by calling a tool, which the audit does only when --call-tool names one: else not verified, saying so.
    { clause: 'authz 2.7', text: 'answers a call of a tool that needs more scope with 403 insufficient_scope naming that scope', probes: ['mcp-tool-scope'] },
    { clause: 'transports 2.0', text: 'refuses a request from a foreign Origin with 403 (DNS rebinding)', probes: ['mcp-origin'] },
    { clause: 'SEP-2207', text: 'does not demand offline_access in its challenge or metadata', probes: ['mcp-offline-access'] },
    // Only a server that speaks 2026-07-28 is held to it: one that speaks an earlier revision only leaves it not applicable.
    { clause: 'SEP-2243', text: 'refuses a 2026-07-28 request whose standard headers disagree with its body', probes: ['mcp-standard-headers'], whereAnnounced: true },
  ],
};
