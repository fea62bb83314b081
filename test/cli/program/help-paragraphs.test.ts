// The notes after a command's options are filled evenly: a line of prose ends only where the next word
// would not fit, whatever the source's line breaks (token --help wrapped raggedly).
import { expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { COMMANDS } from '../../../src/cli/program/commands.js';
import { memoryIO } from '../../helpers/io.js';

const COLUMNS = 80;

it.each([...Object.keys(COMMANDS), 'completion'])('%s --help: each prose line of the notes is as full as the next word allows', async (name) => {
  const io = memoryIO({});
  Object.assign(io.stdout, { isTTY: true, columns: COLUMNS });
  expect(await run([name, '--help'], io)).toBe(0);
  const help = io.out();
  // The notes: after the options' list, the paragraphs at the margin (not headings, examples or options).
  const lines = help.split('\n');
  const prose = (line: string | undefined) => line !== undefined && /^[^\s$|*-]/.test(line) && !/:$/.test(line) && !/^Usage:/.test(line);
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!prose(lines[i]) || !prose(lines[i + 1])) continue;
    const next = lines[i + 1]!.split(' ')[0]!;
    expect(lines[i]!.length + 1 + next.length, `${name}: "${lines[i]}" could take "${next}"`).toBeGreaterThan(COLUMNS);
  }
});
