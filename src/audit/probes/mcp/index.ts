import type { AuditProbe } from '../../types.js';
import { mcpChallengeProbe } from './mcp-challenge.js';
import { mcpMetadataResourceProbe } from './mcp-metadata-resource.js';
import { mcpQueryTokenProbe } from './mcp-query-token.js';
import { mcpTokenAudienceProbe } from './mcp-token-audience.js';
import { mcpOriginProbe } from './mcp-origin.js';
import { mcpOfflineAccessProbe } from './mcp-offline-access.js';
import { mcpStandardHeadersProbe } from './mcp-standard-headers.js';
import { mcpToolScopeProbe } from './mcp-tool-scope.js';

/** An MCP server (audit --protected-resource URL), met as MCP clients meet it: a POST of initialize first. */
export const MCP_PROBES: readonly AuditProbe[] = [
  mcpChallengeProbe,
  mcpMetadataResourceProbe,
  mcpOfflineAccessProbe,
  mcpTokenAudienceProbe,
  mcpQueryTokenProbe,
  mcpOriginProbe,
  mcpStandardHeadersProbe,
  mcpToolScopeProbe,
];
