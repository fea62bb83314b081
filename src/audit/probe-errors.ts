/** Thrown by a probe (or the context) when the probe cannot run here: the probe is skipped with the reason. */
export class ProbeSkip extends Error {
  override readonly name = 'ProbeSkip';
}

/** Thrown when a step the probe needs failed (no code could be obtained, ...): the probe fails with the message. */
export class ProbeFailure extends Error {
  override readonly name = 'ProbeFailure';
}
