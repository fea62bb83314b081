import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.2: failed client authentication is 401 invalid_client (with WWW-Authenticate after Basic). */
export const clientSecretWrongProbe: AuditProbe = {
  id: 'client-secret-wrong',
  title: 'wrong client secret gets 401 invalid_client',
  rfc: 'RFC 6749 §5.2',
  category: 'client-authentication',
  threat: 'RFC 6819 §4.3.5 (client credentials guessed)',
  remedy: 'Refuse a wrong client secret with HTTP 401 invalid_client and a WWW-Authenticate of the scheme used.',
  needsFlow: true,
  async run(ctx) {
    const client = ctx.client;
    if (client.authMethod === 'none') return skip(`${client.clientId} is a public client without a secret`);
    if (client.clientSecret === undefined) return skip(`${client.clientId} authenticates with ${client.authMethod}, not a client secret`);
    const issued = await ctx.obtainCode();
    const exchange = await ctx.redeem(issued, {}, { ...client, clientSecret: `${client.clientSecret}-wrong` });
    if (issuedTokens(exchange)) return fail('tokens issued with a wrong client secret');
    const seen = describeExchange(exchange);
    if (exchange.error?.error !== 'invalid_client') return fail(`refused, but with ${seen} instead of invalid_client`);
    const basic = client.authMethod === 'client_secret_basic';
    if (exchange.status !== 401) {
      // With Basic the status MUST be 401; otherwise 401 is allowed and 400 is common.
      return basic ? fail(`${seen}: must be HTTP 401 when the client authenticated with Basic`) : warn(`${seen}: HTTP 401 is the usual answer`);
    }
    const challenge = exchange.headers['www-authenticate'];
    if (basic && !challenge) return warn(`${seen}, but without the WWW-Authenticate header a 401 must carry`);
    // Section 5.2: the header names the authentication scheme the client used (Basic here).
    if (basic && challenge && !/^\s*basic(\s|,|$)/i.test(challenge) && !/,\s*basic(\s|,|$)/i.test(challenge))
      return warn(`${seen}, but WWW-Authenticate: ${challenge} names another scheme than the Basic the client used (RFC 6749 §5.2)`);
    return pass(`${seen} (${client.authMethod})${challenge ? `, WWW-Authenticate: ${challenge}` : ''}`);
  },
};
