import type { McpAuthorizationServer } from '../../client/mcp/authorization-server.js';
import type { FirstAnswer } from '../../client/resources/protected-resource.js';
import { bearerError } from '../../oauth/www-authenticate.js';
import type { Renderer } from '../../output/render.js';

/**
 * Whether the MCP server's token is asked for DPoP-bound (SEP-1932, RFC 9449): --dpop or --dpop-key; the
 * resource's metadata requiring it (RFC 9728 section 2, dpop_bound_access_tokens_required); or a 401
 * that challenges with the DPoP scheme only (RFC 9449 section 7.1: that resource takes no Bearer token).
 * Narrated when oauthctl decides it by itself.
 */
export function wantsDpop(options: { dpop?: boolean | undefined; dpopKey?: string | undefined }, server: McpAuthorizationServer, answer: FirstAnswer, renderer: Renderer): boolean {
  if (options.dpop === true || options.dpopKey !== undefined) return true;
  if (server.resourceDiscovery?.metadata?.dpop_bound_access_tokens_required === true) {
    renderer.info('the resource requires DPoP-bound tokens (dpop_bound_access_tokens_required): asking for one (RFC 9449, SEP-1932)');
    return true;
  }
  const challenge = answer.headers['www-authenticate'];
  if (bearerError(challenge, 'DPoP') !== undefined && bearerError(challenge, 'Bearer') === undefined) {
    renderer.info('the MCP server challenges with the DPoP scheme only: asking for a DPoP-bound token (RFC 9449 section 7.1, SEP-1932)');
    return true;
  }
  return false;
}
