/**
 * The two ways a command fails, as the contract fixes them:
 * exit 2 for bad usage or invalid input, exit 1 for a flow that failed.
 * Each carries one line saying what went wrong and, in `hint`, what to try.
 */
export abstract class CliError extends Error {
  abstract readonly exitCode: 1 | 2;
  readonly hint?: string;

  constructor(message: string, hint?: string) {
    super(message);
    if (hint !== undefined) this.hint = hint;
  }
}

/** Bad usage or invalid input: unknown option, malformed URL, a code verifier outside the rules. Exit 2. */
export class UsageError extends CliError {
  readonly exitCode = 2 as const;
  override readonly name = 'UsageError';
}

/** The flow failed: an OAuth error, state mismatch, consent refused, timeout, an API status >= 400. Exit 1. */
export class FlowError extends CliError {
  readonly exitCode = 1 as const;
  override readonly name = 'FlowError';
}
