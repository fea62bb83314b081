import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { isJarmResponseMode } from '../../../oauth/jarm.js';
import { ALLOWED, disallowed, shownAlg } from '../../fapi2-algorithms.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * FAPI 2.0 Security Profile section 5.4.1: what the server signs with. An ID token (with openid in the
 * scope), a JWT access token (RFC 9068) and a JWT authorization response (JARM, where announced) are
 * each signed PS256, ES256 or EdDSA.
 */
export const fapi2SigningAlgProbe: AuditProbe = {
  id: 'fapi2-signing-alg',
  title: 'ID tokens, JWT access tokens and JWT responses are signed PS256, ES256 or EdDSA',
  rfc: 'FAPI 2.0 SP §5.4.1',
  category: 'fapi2',
  threat: 'RSASSA-PKCS1-v1_5 (RS256) signatures, which FAPI 2.0 clients refuse: the OpenID conformance suite fails them',
  remedy: 'Sign ID tokens, access tokens and authorization responses with a P-256 key (ES256), an RSA key as PS256, or Ed25519.',
  needsFlow: true,
  async run(ctx) {
    const seen: string[] = [];
    const wrong: string[] = [];
    const note = (what: string, token: unknown) => {
      if (typeof token !== 'string') return;
      const decoded = decodeJwtUnverified(token);
      if (!decoded) return;
      const alg = decoded.header.alg;
      if (disallowed(alg) !== undefined) wrong.push(`${what} ${shownAlg(alg)}`);
      else seen.push(`${what} ${String(alg)}`);
    };
    const exchange = await ctx.redeem(await ctx.obtainCode());
    if (!issuedTokens(exchange)) return fail(`no tokens to look at: ${describeExchange(exchange)}`);
    const tokens = exchange.json as Record<string, unknown>;
    note('the ID token', tokens.id_token);
    note('the access token', tokens.access_token);
    const modes = ctx.metadata?.response_modes_supported;
    const mode = Array.isArray(modes) ? ['query.jwt', 'jwt'].find((m) => modes.includes(m)) : undefined;
    if (mode !== undefined && isJarmResponseMode(mode)) {
      const outcome = await ctx.authorize({ pkce: ctx.usesPkce ? ctx.freshPkce() : null, extraParams: { response_mode: mode } });
      if (outcome.kind === 'redirect') note('the authorization response', outcome.params.response);
    }
    if (wrong.length > 0) return fail(`signed ${wrong.join(', ')} (allowed: ${ALLOWED})`);
    if (seen.length === 0) return skip('nothing signed to look at: no openid in the scope (no ID token), an opaque access token and no JWT response mode announced');
    return pass(`signed ${seen.join(', ')}`);
  },
};
