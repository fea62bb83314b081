import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../../src/output/io.js';
import { buildProgram, run } from '../../../src/cli/program/main.js';
import { COMMANDS } from '../../../src/cli/program/commands.js';
import type { Command } from 'commander';
import { memoryIO } from '../../helpers/io.js';

const ANSI = /\x1b\[[0-9;]*m/;

function terminalIO(env: NodeJS.ProcessEnv) {
  const io = memoryIO(env);
  (io.stderr as { isTTY?: boolean }).isTTY = true;
  return io;
}

describe('colour', () => {
  it('is on only on a terminal, and off with NO_COLOR or --no-color', () => {
    expect(colorEnabled(terminalIO({}))).toBe(true);
    expect(colorEnabled(memoryIO({}))).toBe(false);
    expect(colorEnabled(terminalIO({ NO_COLOR: '1' }))).toBe(false);
    expect(colorEnabled(terminalIO({}), false)).toBe(false);
    expect(colorEnabled(memoryIO({ FORCE_COLOR: '1' }))).toBe(true);
  });

  // A login that gives up after a second: its narration has coloured steps.
  const argv = ['login', '--auth-url', 'http://127.0.0.1:9/', '--client-id', 'c', '--pkce', '--no-browser', '--timeout', '1'];

  it('colours the narration of a command on a terminal', async () => {
    const io = terminalIO({});
    expect(await run(argv, io)).toBe(1);
    expect(io.err()).toMatch(ANSI);
    expect(io.err()).toMatch(/Authorization request/);
    expect(io.out()).not.toMatch(ANSI);
  });

  it('leaves it plain with --no-color and with NO_COLOR', async () => {
    const flagged = terminalIO({});
    expect(await run([...argv, '--no-color'], flagged)).toBe(1);
    expect(flagged.err()).not.toMatch(ANSI);
    const env = terminalIO({ NO_COLOR: '1' });
    expect(await run(argv, env)).toBe(1);
    expect(env.err()).not.toMatch(ANSI);
  });

  /** A command and its subcommands, as `oauthctl a b` names them. */
  const walk = (cmd: Command, path: string[]): [string[], Command][] => [[path, cmd], ...cmd.commands.flatMap((sub) => walk(sub, [...path, sub.name()]))];

  it.each([...Object.keys(COMMANDS), 'completion'])('%s (and each of its subcommands) takes --no-color', async (name) => {
    const program = await buildProgram([name], memoryIO({}));
    const cmd = program.commands.find((c) => c.name() === name)!;
    for (const [path, sub] of walk(cmd, [name]))
      expect(
        sub.options.map((o) => o.long),
        path.join(' '),
      ).toContain('--no-color');
  });

  it('--no-color before or after the command name turns colour off for what the command draws', async () => {
    for (const args of [
      ['--no-color', ...argv],
      [...argv, '--no-color'],
    ]) {
      const io = terminalIO({});
      expect(await run(args, io)).toBe(1);
      expect(io.err()).toMatch(/Authorization request/);
      expect(io.err()).not.toMatch(ANSI);
    }
    const io = terminalIO({});
    expect(await run(['pkce', '--no-color'], io)).toBe(0);
    expect(io.out()).toMatch(/^code_verifier=/);
  });
});
