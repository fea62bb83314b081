import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { shareQuiet } from '../../../src/cli/program/main.js';

/** A program shaped like oauthctl's: -q on the program and on the command; what the command's action sees. */
function parse(argv: string[]): { quiet: boolean; seen: unknown } {
  const program = new Command('oauthctl').option('-q, --quiet').exitOverride();
  let seen: unknown;
  let quiet = false;
  program
    .command('serve-mock')
    .option('-q, --quiet')
    .option('--json')
    .action((options: { quiet?: boolean }) => {
      seen = options.quiet;
    });
  program.hook('preAction', (_p, action) => {
    quiet = shareQuiet(program, action);
  });
  program.parse(argv, { from: 'user' });
  return { quiet, seen };
}

describe('-q, --quiet before or after the command name', () => {
  it('reaches the command after its name, where commander gives it to the program', () => {
    expect(parse(['serve-mock', '--json', '--quiet'])).toEqual({ quiet: true, seen: true });
    expect(parse(['serve-mock', '-q'])).toEqual({ quiet: true, seen: true });
  });
  it('reaches the command before its name', () => {
    expect(parse(['-q', 'serve-mock'])).toEqual({ quiet: true, seen: true });
  });
  it('is off when not given', () => {
    expect(parse(['serve-mock', '--json'])).toEqual({ quiet: false, seen: undefined });
  });
});
