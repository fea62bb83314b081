import type { Command } from 'commander';
import type { IO } from './io.js';

// Placeholder until the command lands.
export function register(program: Command, _io: IO): void {
  program.command('demo').description('not built yet');
}
