/**
 * The `jti` values seen (DPoP proofs, RFC 9449 section 11.1; client assertions, RFC 7523 section 3),
 * each kept until it expires. Bounded, but it never forgets a live value to make room: when it is
 * full of live values a new one is refused ("busy"), so that a flood cannot push a value out and
 * replay it.
 */
export class ReplayCache {
  private readonly seen = new Map<string, number>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}

  /** Records `jti` until `expiresAt` (ms): 'fresh' the first time, 'replayed' after, 'busy' when full. */
  use(jti: string, expiresAt: number): 'fresh' | 'replayed' | 'busy' {
    const now = this.now();
    const until = this.seen.get(jti);
    if (until !== undefined && until > now) return 'replayed';
    if (this.seen.size >= this.max) this.sweep(now);
    if (this.seen.size >= this.max) return 'busy';
    this.seen.set(jti, expiresAt);
    return 'fresh';
  }

  get size(): number {
    return this.seen.size;
  }

  /** Drops every expired value (mixed lifetimes: the whole map is walked). */
  sweep(now = this.now()): void {
    for (const [jti, until] of this.seen) if (until <= now) this.seen.delete(jti);
  }
}
