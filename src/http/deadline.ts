import { FlowError } from '../errors.js';

export const DEFAULT_HTTP_TIMEOUT_SECONDS = 30;

/** What a transport watches to stop a request: the deadline, or the caller's own signal. */
export interface RequestAbort {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** Calls `listener` once when the request is to stop; returns what unsubscribes it. */
  onAbort(listener: (reason: unknown) => void): () => void;
  /** The same as an AbortSignal, for a transport that takes one (undici): made when first asked for. */
  readonly signal: AbortSignal;
}

/**
 * One deadline for a whole request, connect to last byte: a server that trickles a byte every few
 * seconds cannot hold a command past it (per-phase timeouts alone never fire then). A timer and a
 * list of listeners: Node's AbortController (and EventTarget under it, half a millisecond to load) is
 * made only for a transport that asks for a signal.
 */
export class RequestDeadline implements RequestAbort {
  private state: { reason: unknown } | undefined;
  private timedOut = false;
  private readonly listeners = new Set<(reason: unknown) => void>();
  private readonly timer: NodeJS.Timeout;
  private controller: AbortController | undefined;
  private readonly onOuterAbort = (): void => this.abort(this.outer?.reason);

  constructor(
    readonly timeoutMs: number,
    private readonly outer?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abort(new DeadlineExceeded(timeoutMs));
    }, timeoutMs);
    if (outer?.aborted) this.abort(outer.reason);
    else outer?.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  /** Whether the deadline itself passed (not the caller's signal). */
  get expired(): boolean {
    return this.timedOut;
  }

  get aborted(): boolean {
    return this.state !== undefined;
  }

  get reason(): unknown {
    return this.state?.reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      if (this.state !== undefined) controller.abort(this.state.reason);
      else this.onAbort((reason) => controller.abort(reason));
    }
    return this.controller.signal;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }

  private abort(reason: unknown): void {
    if (this.state !== undefined) return;
    this.state = { reason };
    for (const listener of [...this.listeners]) listener(reason);
    this.listeners.clear();
  }
}

export class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${formatSeconds(timeoutMs)}`);
    this.name = 'DeadlineExceeded';
  }
}

export function deadlineError(where: string, timeoutMs: number): FlowError {
  return new FlowError(
    `${where} timed out after ${formatSeconds(timeoutMs)} (the whole request, connect to last byte)`,
    'check that the server is up and answering; --http-timeout SECONDS allows longer',
  );
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
