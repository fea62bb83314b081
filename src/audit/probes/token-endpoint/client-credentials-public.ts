import { CLIENT_CREDENTIALS_GRANT } from '../../../oauth/grant-types.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 6749 section 4.4: the client credentials grant MUST only be used by confidential clients. Asks
 * for a token with the client_id alone, as a public client would (no secret, no other credential).
 */
export const clientCredentialsPublicProbe: AuditProbe = {
  id: 'client-credentials-public',
  title: 'client credentials refused to a public client',
  rfc: 'RFC 6749 §4.4',
  category: 'token-endpoint',
  threat: 'RFC 6749 §4.4; RFC 6819 §4.3.5',
  remedy: 'Grant client_credentials to confidential clients only.',
  async run(ctx) {
    const grants = ctx.metadata?.grant_types_supported;
    if (!Array.isArray(grants) || !grants.includes(CLIENT_CREDENTIALS_GRANT)) return skip('the server does not list client_credentials in grant_types_supported');
    const clientId = ctx.config.clientId;
    const exchange = await ctx.token({ grant_type: CLIENT_CREDENTIALS_GRANT }, { clientId, authMethod: 'none' });
    if (issuedTokens(exchange)) return fail(`an access token was issued to ${clientId} with no client authentication at all (client_id only)`);
    const seen = describeExchange(exchange);
    const error = exchange.error?.error;
    if (error === 'unauthorized_client' || error === 'invalid_client') return pass(`refused: ${seen}`);
    return warn(`refused, but with ${seen} instead of unauthorized_client or invalid_client`);
  },
};
