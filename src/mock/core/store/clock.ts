/**
 * The mock's clock: every issuing, expiry and validation reads it (MockState.now), and the admin API
 * steers it. It runs at the speed of the source it wraps (real time unless a test passes its own), from
 * wherever it was last advanced or set.
 */
export class MockClock {
  private offsetMs = 0;
  constructor(private readonly source: () => number = Date.now) {}

  /** Milliseconds since the epoch, as the mock sees it. */
  now(): number {
    return this.source() + this.offsetMs;
  }

  /** Moves the clock forward (or back, with a negative number) by `seconds`. */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /** Puts the clock at `epochSeconds`; it goes on running from there. */
  set(epochSeconds: number): void {
    this.offsetMs = epochSeconds * 1000 - this.source();
  }
}
