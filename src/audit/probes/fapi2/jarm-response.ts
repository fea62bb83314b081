import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { checkJarmClaims, isJarmResponseMode } from '../../../oauth/jarm.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/** JARM section 2.1 recommends a short life; more than this is reported. */
const LONGEST_RESPONSE_SECONDS = 600;

/**
 * FAPI 2.0 Message Signing section 5.4 (JARM section 2): where the server announces a JWT response
 * mode, the response is a JWT signed by a key of its JWKS (never alg none), issued by it, for this
 * client (a response JWT for another audience would let it be replayed there), and short-lived.
 */
export const jarmResponseProbe: AuditProbe = {
  id: 'jarm-response',
  title: 'the JWT authorization response is signed, for this client, and short-lived',
  rfc: 'JARM §2.1; FAPI 2.0 MS §5.4',
  category: 'fapi2',
  threat: 'JARM §4 (a forged, replayed or misdirected authorization response)',
  remedy: 'Sign response JWTs with a key of the JWKS, with iss the issuer, aud the client id and an exp of minutes.',
  needsFlow: true,
  async run(ctx) {
    const modes = ctx.metadata?.response_modes_supported;
    const mode = Array.isArray(modes) ? ['query.jwt', 'jwt'].find((m) => modes.includes(m)) : undefined;
    if (mode === undefined || !isJarmResponseMode(mode)) return skip('the metadata announces no JWT response mode (query.jwt or jwt)');
    const outcome = await ctx.authorize({ pkce: ctx.usesPkce ? ctx.freshPkce() : null, extraParams: { response_mode: mode } });
    const refused = outcome.kind === 'redirect' && outcome.params.response !== undefined ? undefined : (refusal(outcome) ?? 'a redirect without a response parameter');
    if (refused !== undefined) return fail(`response_mode=${mode} gave no response JWT: ${refused}`);
    const token = (outcome as { params: Record<string, string> }).params.response!;
    const decoded = decodeJwtUnverified(token);
    if (!decoded) return fail('the response parameter is not a signed JWT');
    if (decoded.header.alg === undefined || decoded.header.alg === 'none') return fail('the response JWT is unsigned (alg none)');
    const jwksUri = ctx.endpoint('jwks_uri');
    if (jwksUri === undefined || ctx.issuer === undefined) return skip('the issuer or its jwks_uri is not known');
    const { fetchJwks, checkSignature } = await import('../../../client/responses/jwt-verify.js');
    const checks = [
      await checkSignature(token, await fetchJwks(ctx.http, jwksUri), jwksUri),
      ...checkJarmClaims(decoded.claims, { issuer: ctx.issuer, clientId: ctx.config.clientId, nowMs: Date.now() }),
    ];
    const failed = checks.filter((c) => c.status === 'fail');
    if (failed.length > 0) return fail(failed.map((c) => `${c.name}: ${c.detail}`).join('; '));
    const life = Number(decoded.claims.exp) - Math.floor(Date.now() / 1000);
    if (life > LONGEST_RESPONSE_SECONDS) return warn(`the response JWT lives ${life} s (more than ${LONGEST_RESPONSE_SECONDS} s)`);
    return pass(`${String(decoded.header.alg)} signature, iss, aud ${ctx.config.clientId} and exp (in ${life} s) right`);
  },
};
