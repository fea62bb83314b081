import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { memoryIO as sharedMemoryIO, type MemoryIO } from '../../helpers/io.js';

/** A home of its own for this test process, so that token caches and profiles never touch the real one. */
const HOME = mkdtempSync(join(tmpdir(), 'oauthctl-headless-home-'));
process.on('exit', () => rmSync(HOME, { recursive: true, force: true }));

export type { MemoryIO };

/** Streams that collect what a command writes, with a HOME of this test process's own. */
export function memoryIO(env: NodeJS.ProcessEnv = {}): MemoryIO {
  return sharedMemoryIO({ NO_COLOR: '1', PATH: process.env.PATH ?? '', HOME, ...env }, new PassThrough());
}
