import type { Command } from 'commander';
import { UsageError } from '../../errors.js';

/** Options every command takes. */
export interface CommonOptions {
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  showSecrets?: boolean;
}

export function addCommonOptions(cmd: Command): Command {
  return addQuietOption(cmd)
    .option('-v, --verbose', 'trace each HTTP request and response on stderr (secrets redacted)')
    .option('--no-color', 'no colour in the output (also NO_COLOR)')
    .option('--show-secrets', 'print secrets (client secret, code verifier, tokens) in logs and traces');
}

/** `-q, --quiet` (every command): main.run() then sends nothing to stderr but the one line of a failure. */
export function addQuietOption(cmd: Command): Command {
  return cmd.option('-q, --quiet', 'nothing on stderr but the one line of a failure');
}

/** The candidate nearest to a mistyped word (at most two edits away, or a prefix of it), for "did you mean". */
export function suggestSimilar(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = candidate.startsWith(word) ? 1 : editDistance(word, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Records the exit code a command finished with; run() returns it. */
export function setExitCode(cmd: Command, code: number): void {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  (root as Command & { oauthctlExitCode?: number }).oauthctlExitCode = code;
}

/** Parsers for commander options that turn bad input into one clear line (exit 2). */
export function parseInteger(name: string, min: number, max: number, rule?: string): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`${name} must be a whole number from ${min} to ${max}${rule ? ` (${rule})` : ''}, got ${JSON.stringify(value)}`);
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
