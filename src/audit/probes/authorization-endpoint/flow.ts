import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1: login, consent, code, token response, through the headless agent. */
export const flowProbe: AuditProbe = {
  id: 'flow',
  title: 'authorization code flow completes',
  rfc: 'RFC 6749 §4.1',
  category: 'authorization-endpoint',
  threat: 'RFC 6749 §4.1',
  remedy: 'Make the authorization code flow work for the audited client: every other probe builds on it.',
  async run(ctx) {
    const issued = await ctx.obtainCode();
    const exchange = await ctx.redeem(issued);
    if (!issuedTokens(exchange)) return fail(`code issued, but the token request got ${describeExchange(exchange)}`);
    const json = exchange.json as Record<string, unknown>;
    const extras = ['token_type', 'expires_in', 'scope'].filter((k) => json[k] !== undefined).map((k) => `${k}=${String(json[k])}`);
    return pass(`code issued${issued.pkce ? ' (PKCE S256)' : ''}, token response with access_token${extras.length ? ` (${extras.join(', ')})` : ''}`);
  },
};
