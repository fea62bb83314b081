import { refusal } from '../pkce/pkce-required.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/**
 * RFC 6749 sections 3.1 and 3.2: request parameters are not sent more than once, and a request that
 * repeats one is invalid_request (sections 4.1.2.1 and 5.2). Two conflicting values let a server and a
 * proxy or a filter in front of it read different requests, so a code or a token for one is a failure.
 */
export const repeatedParamsProbe: AuditProbe = {
  id: 'repeated-params',
  title: 'repeated parameters refused',
  rfc: 'RFC 6749 §3.1',
  category: 'authorization-endpoint',
  threat: 'RFC 6749 §3.1 (parameter pollution)',
  remedy: 'Refuse requests in which a parameter appears more than once.',
  needsFlow: true,
  async run(ctx) {
    const url = new URL(ctx.authorizationUrl({ pkce: ctx.usesPkce ? ctx.freshPkce() : null }));
    const state = url.searchParams.get('state') ?? 'a';
    url.searchParams.append('state', `${state}-repeated`);
    const authorize = await ctx.authorize({ rawUrl: url.href });
    const refused = refusal(authorize);
    if (!refused) return fail('the authorization endpoint issued a code for a request with state twice (two values)');
    const results: string[] = [`/authorize: ${refused}`];
    for (const order of ['real first', 'real last'] as const) {
      const req = await ctx.redemptionRequest(await ctx.obtainCode());
      const form = new URLSearchParams(req.body);
      const code = form.get('code') ?? '';
      form.delete('code');
      const codes = order === 'real first' ? [code, 'oauthctl-audit-other-code'] : ['oauthctl-audit-other-code', code];
      const body = `${form.toString()}&${codes.map((c) => `code=${encodeURIComponent(c)}`).join('&')}`;
      const x = await ctx.rawToken('authorization_code (code twice)', req.url, { method: 'POST', headers: req.headers, body });
      if (issuedTokens(x)) return fail(`${results.join('; ')}; but the token endpoint issued tokens for a request with code twice (the ${order === 'real first' ? 'first' : 'last'} value taken)`);
      results.push(`code twice (${order}): ${describeExchange(x)}`);
    }
    return pass(results.join('; '));
  },
};
