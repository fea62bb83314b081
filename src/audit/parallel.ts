import { issuedTokens, type TokenExchange } from './exchanges.js';

/** How many copies of one request race each other: enough to hit a check-then-set window, few enough to be polite. */
export const PARALLEL_REQUESTS = 5;

/** Sends the same request PARALLEL_REQUESTS times at once; returns the exchanges and how many got tokens. */
export async function race(send: () => Promise<TokenExchange>): Promise<{ exchanges: TokenExchange[]; successes: TokenExchange[] }> {
  const exchanges = await Promise.all(Array.from({ length: PARALLEL_REQUESTS }, send));
  return { exchanges, successes: exchanges.filter(issuedTokens) };
}

/** The statuses of a race, in order: `200, 400 invalid_grant x4`. */
export function raceSummary(exchanges: readonly TokenExchange[]): string {
  const counts = new Map<string, number>();
  for (const x of exchanges) {
    const key = `${x.status}${x.error ? ` ${x.error.error}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => (n > 1 ? `${k} x${n}` : k)).join(', ');
}
