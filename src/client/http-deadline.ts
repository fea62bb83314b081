import { FlowError } from '../errors.js';

export const DEFAULT_HTTP_TIMEOUT_SECONDS = 30;

/**
 * One deadline for a whole request, connect to last byte: a server that trickles a byte every few
 * seconds cannot hold a command past it (per-phase timeouts alone never fire then).
 */
export class RequestDeadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly timeoutMs: number,
    outer?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.controller.abort(new DeadlineExceeded(timeoutMs)), timeoutMs);
    this.signal = outer ? AbortSignal.any([this.controller.signal, outer]) : this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  clear(): void {
    clearTimeout(this.timer);
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
