import { mustRefuse, present, presentsAsMcp, workingToken } from '../../protected-resource.js';
import { skip, type AuditProbe } from '../../types.js';

/**
 * RFC 6750 section 2.2 and 5.3: a token in a form body is a choice the resource makes, most take the
 * header only (and MCP requires it, authorization "token requirements"). A resource that answers the
 * POST at all without the header is asked whether the form's token counts.
 */
export const resourceFormTokenProbe: AuditProbe = {
  id: 'resource-form-token',
  title: 'a token in a form body is refused',
  rfc: 'RFC 6750 §2.2',
  category: 'protected-resource',
  threat: 'RFC 6750 §5.3 (tokens accepted where they leak: bodies logged, cross-site forms)',
  remedy: 'take access tokens from the Authorization header only; ignore access_token in a request body',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    if (presentsAsMcp(ctx)) return skip('not tested: an MCP server takes JSON-RPC bodies only, where a form has no place (mcp-query-token and the header probes cover it)');
    return mustRefuse(await present(ctx, token, 'form'), 'a valid token as access_token in a form-encoded POST body');
  },
};
