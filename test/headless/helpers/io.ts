import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

/** A home of its own for this test process, so that token caches and profiles never touch the real one. */
const HOME = mkdtempSync(join(tmpdir(), 'oauthctl-headless-home-'));
process.on('exit', () => rmSync(HOME, { recursive: true, force: true }));
import type { IO } from '../../../src/cli/io.js';

export interface MemoryIO extends IO {
  out(): string;
  err(): string;
}

/** Streams that collect what a command writes, for running the CLI in-process with run(argv, io). */
export function memoryIO(env: NodeJS.ProcessEnv = {}): MemoryIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1', PATH: process.env.PATH ?? '', HOME, ...env }, out: () => out, err: () => err };
}
