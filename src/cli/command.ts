import type { Command } from 'commander';
import { UsageError } from '../errors.js';

/** Options every command takes. */
export interface CommonOptions {
  verbose?: boolean;
  color?: boolean;
  showSecrets?: boolean;
}

export function addCommonOptions(cmd: Command): Command {
  return cmd
    .option('-v, --verbose', 'trace each HTTP request and response on stderr (secrets redacted)')
    .option('--no-color', 'no colour in the output (also NO_COLOR)')
    .option('--show-secrets', 'print secrets (client secret, code verifier, tokens) in logs and traces');
}

/** Records the exit code a command finished with; run() returns it. */
export function setExitCode(cmd: Command, code: number): void {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  (root as Command & { oauthctlExitCode?: number }).oauthctlExitCode = code;
}

/** Parsers for commander options that turn bad input into one clear line (exit 2). */
export function parseInteger(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
    return n;
  };
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Checks that a value is an absolute http(s) URL; names the option on failure. */
export function parseHttpUrl(name: string): (value: string) => string {
  return (value: string) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new UsageError(`${name} is not a valid URL: ${JSON.stringify(value)}`, 'give an absolute URL such as https://id.example.com');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`${name} must be an http or https URL, got ${JSON.stringify(value)}`);
    }
    return value;
  };
}
