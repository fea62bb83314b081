import type { Command } from 'commander';
import { DEFAULT_HTTP_TIMEOUT_SECONDS } from '../../http/deadline.js';
import { parseInteger } from '../program/command.js';
import { addWatchOptions } from './watch.js';

/** `--http-timeout SECONDS`, on every command that makes HTTP requests. */
export interface HttpTimeoutOption {
  httpTimeout?: number | undefined;
}

/**
 * Also `--trace FILE` (main.ts records and writes it), and `--ui`, `--ui-keep`, `--step` (watch.ts):
 * every command that makes HTTP requests takes them all.
 */
export function addHttpTimeoutOption(cmd: Command): Command {
  return addWatchOptions(cmd)
    .option('--http-timeout <SECONDS>', `the longest any one HTTP request may take, connect to last byte (default ${DEFAULT_HTTP_TIMEOUT_SECONDS})`, parseInteger('--http-timeout', 1, 3600))
    .option('--trace <FILE>', 'write every HTTP exchange to FILE as HAR 1.2 (0600, also when the command fails; secrets redacted unless --show-secrets); read it with `oauthctl trace FILE`');
}

/** The option in milliseconds for createHttpClient; undefined leaves the default. */
export function httpTimeoutMs(options: HttpTimeoutOption): number | undefined {
  return options.httpTimeout !== undefined ? options.httpTimeout * 1000 : undefined;
}
