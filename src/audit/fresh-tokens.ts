import { type AuditContext } from './context.js';
import { describeExchange, issuedTokens, type IssuedCode, type TokenExchange } from './exchanges.js';
import { ProbeFailure } from './probe-errors.js';

/** A code redeemed the client's way: the exchange and its token response (a failure when no tokens came). */
export async function freshTokens(ctx: AuditContext, issued?: IssuedCode): Promise<{ exchange: TokenExchange; body: Record<string, unknown> }> {
  const exchange = await ctx.redeem(issued ?? (await ctx.obtainCode()));
  if (!issuedTokens(exchange)) throw new ProbeFailure(`the token request was refused: ${describeExchange(exchange)}`);
  return { exchange, body: exchange.json as Record<string, unknown> };
}
