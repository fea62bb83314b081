import { compactVerify, decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { fetchJwks, verifyJwt } from '../../../client/responses/jwt-verify.js';
import { randomToken } from '../../../oauth/random.js';
import { oidcTokenHash } from '../../../oauth/token-hash.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * OpenID Connect Core sections 3.1.3.3 and 3.1.3.7: with openid in the scope the token response holds an
 * ID token, signed (never alg none) by a key of the JWKS, with iss, aud, exp, iat and the nonce sent,
 * and an at_hash, when present, that matches the access token.
 */
export const idTokenProbe: AuditProbe = {
  id: 'id-token',
  title: 'ID token signed and its claims right',
  rfc: 'OIDC Core §3.1.3.7',
  category: 'id-token',
  threat: 'OIDC Core §3.1.3.7',
  remedy: 'Sign ID tokens with a published key and set iss, aud, exp, iat and nonce right.',
  needsFlow: true,
  async run(ctx) {
    if (!ctx.config.scopes.includes('openid')) return skip('openid is not in --scope');
    const nonce = randomToken(128);
    const issued = await ctx.obtainCode({ extraParams: { nonce } });
    const exchange = await ctx.redeem(issued);
    if (!issuedTokens(exchange)) return fail(`the token request failed: ${describeExchange(exchange)}`);
    const json = exchange.json as Record<string, unknown>;
    const idToken = json.id_token;
    if (typeof idToken !== 'string') return fail('openid was in the scope, but the token response has no id_token (OIDC Core §3.1.3.3)');
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(idToken);
      decodeJwt(idToken);
    } catch {
      return fail('the id_token is not a JWT');
    }
    if (header.alg === undefined || header.alg === 'none') return fail('the id_token is unsigned (alg none)');
    const jwksUri = ctx.endpoint('jwks_uri');
    if (jwksUri === undefined) return skip('no jwks_uri in the metadata to check the signature with (give --jwks-uri)');
    const jwks: JSONWebKeySet = await fetchJwks(ctx.http, jwksUri);
    const verification = await verifyJwt(idToken, jwks, { jwksUri, issuer: ctx.issuer, audience: ctx.config.clientId, nonce, nowMs: Date.now(), idToken: true });
    let checks = verification.checks;
    // OpenID Connect Core section 10.1: an HS* ID token is a MAC keyed with the client secret, not a JWKS key.
    if (/^HS\d+$/.test(header.alg) && ctx.client.clientSecret !== undefined) {
      const macValid = await compactVerify(idToken, new TextEncoder().encode(ctx.client.clientSecret)).then(
        () => true,
        () => false,
      );
      checks = [{ name: 'signature', status: macValid ? 'pass' : 'fail', detail: `the ${header.alg} MAC does not match the client secret` }, ...checks.filter((c) => c.name !== 'signature')];
    }
    const problems = checks.filter((c) => c.status === 'fail').map((c) => `${c.name}: ${c.detail}`);
    const atHash = verification.claims.at_hash;
    let atHashNote = '';
    if (atHash !== undefined && typeof json.access_token === 'string') {
      const expected = oidcTokenHash(json.access_token, header.alg);
      if (expected !== undefined && atHash !== expected) problems.push(`at_hash ${JSON.stringify(atHash)} does not match the access token`);
      else if (expected !== undefined) atHashNote = ', at_hash';
    }
    if (problems.length > 0) return fail(problems.join('; '));
    if (ctx.issuer === undefined) return warn(`${header.alg} signature valid; aud, exp, iat, nonce${atHashNote} right; iss not checked: the issuer is unknown (give --issuer)`);
    return pass(`${header.alg} signature valid; iss, aud, exp, iat, nonce${atHashNote} right`);
  },
};
