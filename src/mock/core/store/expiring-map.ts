import { HttpError } from '../http/http-error.js';

/** A full store: the request is refused (503 with Retry-After), nothing already stored is dropped. */
export class StoreFullError extends HttpError {
  constructor(what: string, retryAfterSeconds: number) {
    super(503, 'temporarily_unavailable', `the mock holds as many ${what} as it may; try again in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** A full sweep of a full store runs at most this often (by the store's clock). */
const FULL_SWEEP_EVERY_MS = 1000;

/**
 * A map whose entries expire, bounded in size so that memory stays bounded under load. At the
 * bound nothing is evicted: what it holds (used codes, revoked tokens, families) is security state
 * until it expires, so expired entries are swept and, if the map is still full, the new entry is
 * refused with a StoreFullError. Entries are kept in insertion order, which for one lifetime is also
 * expiry order, so a routine sweep stops at the first run of live entries.
 */
export class ExpiringMap<V extends { expiresAt: number }> {
  private readonly map = new Map<string, V>();
  private nextFullSweep = 0;
  private earliestExpiry = 0;
  /**
   * Called with each entry dropped because it expired (whichever of get, a sweep or a full store
   * found it), after it is gone: the signed-in sessions use it to end an expired session like the
   * others (sessions.ts). Unset on every other map, which pays one check per expired entry.
   */
  onExpire: ((key: string, value: V) => void) | undefined = undefined;
  constructor(
    readonly max: number,
    private readonly now: () => number,
    private readonly what = 'entries',
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The live entry, or undefined when absent or expired (an expired one is dropped). */
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    if (v.expiresAt <= this.now()) {
      this.drop(key, v);
      return undefined;
    }
    return v;
  }

  /** Stores an entry; throws StoreFullError when fewer than `reserve` + 1 places are free after a sweep. */
  set(key: string, value: V, reserve = 0): void {
    if (!this.map.has(key)) this.ensureRoom(1 + reserve);
    this.map.set(key, value);
  }

  /** Throws StoreFullError unless `n` more entries fit (expired ones are swept first when needed). */
  ensureRoom(n = 1): void {
    if (this.map.size + n <= this.max) return;
    const now = this.now();
    if (now >= this.nextFullSweep) {
      this.nextFullSweep = now + FULL_SWEEP_EVERY_MS;
      this.earliestExpiry = Infinity;
      for (const [key, v] of this.map) {
        if (v.expiresAt <= now) this.drop(key, v);
        else if (v.expiresAt < this.earliestExpiry) this.earliestExpiry = v.expiresAt;
      }
    }
    if (this.map.size + n <= this.max) return;
    const wait = Number.isFinite(this.earliestExpiry) ? Math.ceil((this.earliestExpiry - now) / 1000) : 1;
    throw new StoreFullError(this.what, Math.max(1, wait));
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[string, V]> {
    return this.map.entries();
  }

  /** Drops expired entries; with mixed lifetimes a later pass catches what this one skipped. */
  sweep(): void {
    const now = this.now();
    // A map whose expiries are watched (the signed-in sessions: back-channel logout) is swept whole, so
    // that an expired entry never waits behind longer-lived ones inserted before it (sessions of an
    // hour and of a day share the store); the others stop at the first live entries.
    const liveToScan = this.onExpire ? Infinity : 64;
    let live = 0;
    for (const [key, v] of this.map) {
      if (v.expiresAt <= now) this.drop(key, v);
      else if (++live > liveToScan) break;
    }
  }

  private drop(key: string, value: V): void {
    this.map.delete(key);
    this.onExpire?.(key, value);
  }
}
