// Every --help lists its examples first, then its options in groups, wrapped to the
// terminal's width at spaces: no line past the width, no word broken, nothing lost.
import { describe, expect, it } from 'vitest';
import { buildProgram, run } from '../../../src/cli/program/main.js';
import { COMMANDS } from '../../../src/cli/program/commands.js';
import { memoryIO, type MemoryIO } from '../../helpers/io.js';

/** An IO whose stdout is a terminal of `columns` columns. */
function terminal(columns: number): MemoryIO {
  const io = memoryIO({});
  Object.assign(io.stdout, { isTTY: true, columns });
  return io;
}

async function helpOf(args: string[], io: MemoryIO): Promise<string> {
  expect(await run([...args, '--help'], io)).toBe(0);
  return io.out();
}

/** Text with the layout undone: continuation backslashes dropped and runs of white space made one space. */
const flat = (text: string) => text.replace(/ \\\n/g, ' ').replace(/\s+/g, ' ');

const NAMES = [...Object.keys(COMMANDS), 'completion'];

describe.each([80, 120])('--help on a terminal of %i columns', (columns) => {
  it.each(NAMES)('%s: no line is wider than the terminal, and every option is there, its description unbroken', async (name) => {
    const help = await helpOf([name], terminal(columns));
    const program = await buildProgram([name, '--help'], memoryIO({}));
    const cmd = program.commands.find((c) => c.name() === name)!;
    for (const line of help.split('\n')) {
      // A single word longer than the line (a long URL) is the only thing allowed past the width.
      if (line.length > columns) expect(line.trim().split(/\s+/)).toHaveLength(1);
    }
    for (const option of cmd.options) {
      expect(flat(help)).toContain(flat(option.description));
    }
  });

  it('login: examples first, then its own options, then the groups in order', async () => {
    const help = await helpOf(['login'], terminal(columns));
    const at = (heading: string) => help.indexOf(`\n${heading}\n`);
    const order = ['Examples:', 'Options:', 'Server and client:', 'The flow:', 'Client authentication:', 'User agent:', 'HTTP:', 'Output:'].map(at);
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The words that a terminal broke at 80 columns before: now whole, on one line each.
    expect(help).toMatch(/then call this protected API with the access\s+token/);
    expect(help.split('\n').some((l) => /\bwith the a$/.test(l))).toBe(false);
    expect(help).not.toMatch(/^\s*ccess token/m);
  });

  it('a long example is continued with a backslash, the option kept with its value', async () => {
    const help = await helpOf(['login'], terminal(columns));
    const examples = help.slice(help.indexOf('Examples:'), help.indexOf('\nOptions:'));
    for (const line of examples.split('\n').slice(1)) {
      if (line.trim() === '') continue;
      expect(line.length).toBeLessThanOrEqual(columns);
      expect(line).not.toMatch(/--(auth-url|issuer|client-id|client-secret|scope|username|password|redirect-uri) \\$/);
    }
  });
});

describe('--help without a terminal', () => {
  it('wraps to COLUMNS, else to 80', async () => {
    for (const [env, width] of [
      [{}, 80],
      [{ COLUMNS: '100' }, 100],
    ] as const) {
      const help = await helpOf(['login'], memoryIO(env));
      const widest = Math.max(...help.split('\n').map((l) => l.length));
      expect(widest).toBeLessThanOrEqual(width);
      expect(widest).toBeGreaterThan(width - 10);
    }
  });

  it('serve-mock groups only its output options apart: its --tls-cert is the server certificate, not client authentication', async () => {
    const help = await helpOf(['serve-mock'], memoryIO({}));
    expect(help).not.toContain('Client authentication:');
    expect(help.indexOf('--tls-cert')).toBeLessThan(help.indexOf('\nOutput:'));
  });
});
