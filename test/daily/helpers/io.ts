import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../../src/cli/io.js';
import { run } from '../../../src/cli/main.js';

export interface TestIO extends IO {
  out(): string;
  err(): string;
}

/** Streams that record what a command writes; stdin is the given text (not a TTY) or an open stream. */
export function testIO(env: Record<string, string | undefined>, stdin: string | Readable = ''): TestIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const input = typeof stdin === 'string' ? Readable.from([Buffer.from(stdin)]) : stdin;
  return { stdout, stderr, stdin: input, env: { NO_COLOR: '1', ...env }, out: () => out, err: () => err };
}

/** Runs the CLI in-process and returns the exit code with what it printed. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, stdin: string | Readable = ''): Promise<{ code: number; stdout: string; stderr: string; io: TestIO }> {
  const io = testIO(env, stdin);
  const code = await run(argv, io);
  return { code, stdout: io.out(), stderr: io.err(), io };
}
