import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../src/output/io.js';

export interface MemoryIO extends IO {
  out(): string;
  err(): string;
}

/**
 * Streams that collect what a command writes, for running it in-process (run(argv, io) or a run...()
 * function); stdin is the given text (not a TTY) or a stream of the test's own.
 */
export function memoryIO(env: NodeJS.ProcessEnv = {}, stdin: string | Readable = ''): MemoryIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const input = typeof stdin === 'string' ? Readable.from([Buffer.from(stdin)]) : stdin;
  return { stdout, stderr, stdin: input, env, out: () => out, err: () => err };
}
