import { createHash } from 'node:crypto';
import { type AuditContext } from './context.js';
import { describeExchange, issuedTokens } from './exchanges.js';
import { ProbeSkip } from './probe-errors.js';
import { fail, pass } from './types.js';

/** The S256 challenge of any string, valid verifier or not (RFC 7636 section 4.2). */
export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/**
 * A code requested with the S256 challenge of `verifier` and redeemed with it: a verifier outside
 * RFC 7636 section 4.1 (43 to 128 characters of [A-Za-z0-9-._~]) must not get tokens.
 */
export async function redeemWithVerifier(ctx: AuditContext, verifier: string) {
  let issued;
  try {
    issued = await ctx.obtainCode({ pkce: { codeChallenge: s256(verifier), codeChallengeMethod: 'S256' } });
  } catch (err) {
    throw new ProbeSkip(`the authorization request was refused already: ${(err as Error).message}`);
  }
  const exchange = await ctx.redeem(issued, { code_verifier: verifier });
  return issuedTokens(exchange) ? fail(`the verifier ${JSON.stringify(verifier)} got tokens`) : pass(`refused: ${describeExchange(exchange)}`);
}
