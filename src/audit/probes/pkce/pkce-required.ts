import type { AuthorizeOutcome } from '../../exchanges.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** How an authorization request was refused, or undefined when the server issued a code. */
export function refusal(outcome: AuthorizeOutcome): string | undefined {
  if (outcome.kind === 'page' && outcome.stuck !== undefined) return `a page without a redirect (HTTP ${outcome.status} at ${outcome.url}${outcome.text ? `: ${outcome.text}` : ''})`;
  if (outcome.kind === 'page') return `error page (HTTP ${outcome.status})${outcome.text ? `: ${outcome.text}` : ''}`;
  if (outcome.kind === 'elsewhere') return `sent elsewhere (${outcome.url})`;
  if (outcome.kind === 'push-refused') return outcome.text;
  if (outcome.params.code) return undefined;
  return outcome.params.error ? `error=${outcome.params.error}` : 'a redirect without a code';
}

/** RFC 9700 section 2.1.1 and RFC 7636 section 4.4.1: a public client without code_challenge is refused. */
export const pkceRequiredProbe: AuditProbe = {
  id: 'pkce-required',
  title: 'public client without PKCE refused',
  rfc: 'RFC 9700 §2.1.1',
  category: 'pkce',
  threat: 'RFC 9700 §4.5 (code injection); RFC 9700 §2.1.1',
  remedy: 'Require a code_challenge from public clients (better: from every client).',
  needsFlow: true,
  async run(ctx) {
    if (!ctx.isPublicClient) return skip(`${ctx.config.clientId} is a confidential client; PKCE is required of public clients (see pkce-downgrade for confidential ones)`);
    const outcome = await ctx.authorize({ pkce: null });
    const refused = refusal(outcome);
    if (refused) return pass(`authorization request without code_challenge refused: ${refused}`);
    if (outcome.kind !== 'redirect') return fail('unexpected outcome');
    const exchange = await ctx.redeem({ code: outcome.params.code ?? '', redirectUri: ctx.redirectUri, params: outcome.params });
    if (issuedTokens(exchange)) return fail('a public client got tokens without PKCE');
    return pass(`a code was issued without code_challenge, but the token request was refused: ${describeExchange(exchange)}`);
  },
};
