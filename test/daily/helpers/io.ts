import type { Readable } from 'node:stream';
import { memoryIO, type MemoryIO } from '../../helpers/io.js';
import { run } from '../../../src/cli/program/main.js';

export type TestIO = MemoryIO;

/** Streams that record what a command writes; stdin is the given text (not a TTY) or an open stream. */
export function testIO(env: Record<string, string | undefined>, stdin: string | Readable = ''): TestIO {
  return memoryIO({ NO_COLOR: '1', ...env }, stdin);
}

/** Runs the CLI in-process and returns the exit code with what it printed. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, stdin: string | Readable = ''): Promise<{ code: number; stdout: string; stderr: string; io: TestIO }> {
  const io = testIO(env, stdin);
  const code = await run(argv, io);
  return { code, stdout: io.out(), stderr: io.err(), io };
}
