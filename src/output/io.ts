import { Writable, type Readable } from 'node:stream';
import type { HarRecorder } from './har.js';

export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/**
 * The standard streams and environment a command runs with. Commands never touch `process`
 * directly, so tests run them in-process with their own streams.
 */
export interface IO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: NodeJS.ProcessEnv;
  /** With --trace FILE: where every HTTP exchange of the command is recorded. */
  har?: HarRecorder | undefined;
  /**
   * When the person asked for the command (ms since the epoch): the process's start for the command
   * line (src/cli/program/bin.ts), so that time lost starting up under load still counts; else the moment a
   * command that needs it begins.
   */
  startedAt?: number | undefined;
}

export function processIO(): IO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    // Opened only when a command reads it: creating process.stdin costs every short command milliseconds.
    get stdin() {
      return process.stdin;
    },
  };
}

/** A copy of an IO with some of it replaced; a stdin not yet opened stays so (the copy keeps its getter). */
export function withIO(io: IO, replaced: Partial<IO> = {}): IO {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as IO;
  return Object.defineProperties(copy, Object.getOwnPropertyDescriptors(replaced));
}

/** Colour only on a TTY, and never with NO_COLOR (https://no-color.org) or --no-color. */
export function colorEnabled(io: IO, colorFlag: boolean | undefined = true): boolean {
  if (colorFlag === false) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return io.stderr.isTTY === true;
}

/** Where stderr goes with -q/--quiet: nothing is shown, nothing blocks. */
export function discardingStream(): OutStream {
  return new Writable({ write: (_chunk, _encoding, callback) => callback() });
}
