import type { JWK } from 'jose';
import { dpopProofClaims, type DpopKey } from '../oauth/dpop.js';
import { type AuditContext } from './context.js';
import { describeExchange, issuedTokens, type TokenExchange } from './exchanges.js';
import { dpopKeyFor, nonceAsked } from './dpop-requests.js';
import { hmacSigned, signCompact, unsecured, withBrokenSignature } from './forged-jws.js';
import { fail, pass, type AuditProbe } from './types.js';

/** A DPoP proof for the token endpoint, built wrong one way (RFC 9449 section 4.3 lists what the server checks). */
export type ProofChange = (key: DpopKey, claims: Record<string, unknown>, now: number) => string;

/** A proof signed as RFC 9449 section 4.2 says, over the header and claims given. */
export const signedProof = (key: DpopKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string =>
  signCompact({ typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk, ...header }, claims, key.privateKey, key.alg);

export const PROOF_CHANGES = {
  algNone: (key, claims) => unsecured({ typ: 'dpop+jwt', jwk: key.publicJwk }, claims),
  hs256: (key, claims) => hmacSigned({ typ: 'dpop+jwt', jwk: key.publicJwk }, claims, 'oauthctl-audit'),
  badSignature: (key, claims) => withBrokenSignature(signedProof(key, claims)),
  typJwt: (key, claims) => signedProof(key, claims, { typ: 'JWT' }),
  privateJwk: (key, claims) => signedProof(key, claims, { jwk: key.privateKey.export({ format: 'jwk' }) as JWK }),
  iatOld: (key, claims, now) => signedProof(key, { ...claims, iat: now - 3600 }),
  iatFuture: (key, claims, now) => signedProof(key, { ...claims, iat: now + 3600 }),
} satisfies Record<string, ProofChange>;

/** Redeems a fresh code with a changed proof; when the server asks for a nonce (RFC 9449 section 8), once more with it. */
export async function redeemWithChangedProof(ctx: AuditContext, key: DpopKey, change: ProofChange): Promise<TokenExchange> {
  const issued = await ctx.obtainCode();
  const send = (nonce?: string) => {
    const claims = dpopProofClaims({ htm: 'POST', htu: ctx.config.tokenEndpoint, nonce });
    return ctx.redeem(issued, {}, undefined, { headers: { dpop: change(key, claims, Math.floor(Date.now() / 1000)) } });
  };
  const first = await send();
  const nonce = nonceAsked(first);
  return nonce !== undefined ? send(nonce) : first;
}

interface ProofProbe {
  id: string;
  title: string;
  rfc: string;
  threat: string;
  remedy: string;
  change: ProofChange;
}

/** A probe that a token request with a proof built wrong gets no tokens. */
export function dpopProofProbe(p: ProofProbe): AuditProbe {
  return {
    id: p.id,
    title: p.title,
    rfc: p.rfc,
    category: 'dpop',
    threat: p.threat,
    remedy: p.remedy,
    needsFlow: true,
    async run(ctx) {
      const exchange = await redeemWithChangedProof(ctx, await dpopKeyFor(ctx), p.change);
      if (issuedTokens(exchange)) return fail(`tokens were issued for it (token_type ${String((exchange.json as Record<string, unknown>).token_type)})`);
      return pass(`refused: ${describeExchange(exchange)}`);
    },
  };
}
