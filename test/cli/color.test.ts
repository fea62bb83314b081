import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../src/output/io.js';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../helpers/io.js';

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
});
