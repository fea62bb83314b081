import { generateDpopKey } from '../client/flows/keys.js';
import { createDpopProof, type DpopKey, type DpopProofInput } from '../oauth/dpop.js';
import type { AuditContext } from './context.js';
import type { IssuedCode, TokenExchange } from './exchanges.js';
import { ProbeSkip } from './probe-errors.js';

/** The DPoP probes run when the metadata lists ES256 in dpop_signing_alg_values_supported (RFC 9449 section 5.1). */
export async function dpopKeyFor(ctx: AuditContext): Promise<DpopKey> {
  const algs = ctx.metadata?.dpop_signing_alg_values_supported;
  if (!Array.isArray(algs) || algs.length === 0) throw new ProbeSkip('the metadata has no dpop_signing_alg_values_supported (RFC 9449 section 5.1)');
  if (!algs.includes('ES256')) throw new ProbeSkip(`the server's DPoP algorithms (${algs.join(', ')}) do not include ES256`);
  return generateDpopKey();
}

/** The nonce the server asks for, if this exchange was its use_dpop_nonce answer (RFC 9449 section 8). */
export function nonceAsked(x: TokenExchange): string | undefined {
  return x.error?.error === 'use_dpop_nonce' ? x.headers['dpop-nonce'] : undefined;
}

export interface ProofRedemption {
  exchange: TokenExchange;
  /** The last proof sent, and the nonce it carried. */
  proof: string;
  nonce?: string | undefined;
}

/**
 * Redeems a code with a DPoP proof for the token endpoint, claims changed by `change` (a wrong htm or
 * htu); when the server asks for a nonce, once more with it.
 */
export async function redeemWithProof(ctx: AuditContext, key: DpopKey, issued: IssuedCode, change: Partial<DpopProofInput> = {}, nonce?: string): Promise<ProofRedemption> {
  const send = async (n: string | undefined) => {
    const proof = await createDpopProof(key, { htm: 'POST', htu: ctx.config.tokenEndpoint, nonce: n, ...change });
    return { proof, nonce: n, exchange: await ctx.redeem(issued, {}, undefined, { headers: { dpop: proof } }) };
  };
  const first = await send(nonce);
  const asked = nonceAsked(first.exchange);
  return asked !== undefined ? send(asked) : first;
}
