// The audit on a terminal. Each probe once: a live line that its verdict replaces, the
// details wrapped under it with an indent, and a summary that names what failed and warned. Piped, the
// table and the JSON stay as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, loadMockConfig, type MockServer } from '../../src/mock/index.js';
import { formatVerdict } from '../../src/audit/table.js';
import { memoryIO, type MemoryIO } from '../helpers/io.js';

let weak: MockServer;
beforeAll(async () => {
  // weak-cli needs no PKCE and may use plain: pkce-required fails and pkce-plain warns.
  weak = await createMockServer(await loadMockConfig('fixtures/audit/weak-pkce.json'));
});
afterAll(() => weak.close());

const PROBES = 'flow,state,pkce-required,pkce-plain,redirect-uri-exact';
const CLEAR_LINE = '\r\x1b[2K';

/** An IO whose stdout and/or stderr are terminals of `columns` columns. */
function terminalIO(columns: number, tty: { stdout: boolean; stderr: boolean }, env: NodeJS.ProcessEnv = { NO_COLOR: '1' }): MemoryIO {
  const io = memoryIO(env);
  if (tty.stdout) Object.assign(io.stdout, { isTTY: true, columns });
  if (tty.stderr) Object.assign(io.stderr, { isTTY: true, columns });
  return io;
}

async function audit(io: MemoryIO, ...args: string[]): Promise<number> {
  return run(['audit', '--auth-url', weak.authUrl, '--client-id', 'weak-cli', '--scope', 'photo', '--username', 'alice', '--password', 'wonderland', '--only', PROBES, ...args], io);
}

/** What a terminal shows after the text is written: a line cleared by `\r ESC[2K` keeps only what came after. */
function screen(text: string): string[] {
  return text.split('\n').map((line) => line.slice(line.lastIndexOf(CLEAR_LINE) === -1 ? 0 : line.lastIndexOf(CLEAR_LINE) + CLEAR_LINE.length));
}

const VERDICT = /^(PASS|FAIL|WARN|SKIP) {2}(\S+)/;

describe('oauthctl audit with stdout on a terminal', () => {
  it('shows each probe once, replacing its live line by the verdict; the summary names the failures and warnings', async () => {
    const io = terminalIO(60, { stdout: true, stderr: true });
    expect(await audit(io)).toBe(1);
    const out = io.out();
    // While a probe runs, a line names it; its verdict replaces that line.
    expect(out).toContain(`${CLEAR_LINE}[1/5] flow: `);
    expect(out).toContain(`${CLEAR_LINE}[3/5] pkce-required: `);
    const lines = screen(out);
    const verdicts = lines.map((l) => VERDICT.exec(l)?.[2]).filter((id): id is string => id !== undefined);
    expect(verdicts).toEqual(PROBES.split(','));
    expect(lines.some((l) => l.startsWith('['))).toBe(false);
    // No table after the verdicts, and nothing per probe on stderr.
    expect(out).not.toContain('PROBE  STATUS');
    for (const id of PROBES.split(',')) expect(io.err()).not.toMatch(new RegExp(`\\b${id}\\b`));
    // The summary: who failed, who warned, then the counts.
    const end = lines.filter(Boolean).slice(-3);
    expect(end).toEqual(['Failed: pkce-required', 'Warnings: pkce-plain', expect.stringMatching(/^\d+ passed, 1 failed, 1 warning, \d+ skipped$/)]);
  });

  it('wraps the details to the terminal width under the verdict, indented, never to column 0', async () => {
    const io = terminalIO(50, { stdout: true, stderr: false });
    await audit(io);
    const lines = screen(io.out());
    const first = lines.findIndex((l) => VERDICT.test(l));
    const summary = lines.findIndex((l, i) => i > first && l === '');
    const body = lines.slice(first, summary);
    expect(body.length).toBeGreaterThan(PROBES.split(',').length);
    for (const line of body) {
      // A single word longer than the width (a URL) is the only thing that may pass it.
      if (line.length > 50) expect(line.trim().split(' ')).toHaveLength(1);
      expect(VERDICT.test(line) || line.startsWith('      ')).toBe(true);
    }
  });

  it('writes plain verdict lines, with no line to replace, when the terminal cannot move the cursor (TERM=dumb)', async () => {
    const io = terminalIO(80, { stdout: true, stderr: true }, { NO_COLOR: '1', TERM: 'dumb' });
    await audit(io);
    expect(io.out()).not.toContain('\x1b');
    expect(io.err()).not.toContain('\x1b');
    expect(
      io
        .out()
        .split('\n')
        .filter((l) => VERDICT.test(l)),
    ).toHaveLength(5);
  });
});

describe('a verdict', () => {
  it('shows remote text in its detail escaped, wrapped under it', () => {
    const text = formatVerdict(
      {
        id: 'iss',
        title: 'iss',
        status: 'fail',
        rfc: 'RFC 9207 §2',
        category: 'authorization-endpoint',
        threat: 'RFC 9700 §4.4',
        remedy: 'send iss',
        detail: 'the server said "\u001b]0;pwned\u0007\u001b[2J" and then a great many more words than fit',
      },
      5,
      40,
      false,
    );
    expect(text).not.toMatch(/\u001b|\u0007/);
    expect(text).toContain('\\x1b]0;pwned\\x07');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('FAIL  iss    RFC 9207 §2');
    for (const line of lines.slice(1)) {
      expect(line.startsWith('      ')).toBe(true);
      expect(line.length).toBeLessThanOrEqual(40);
    }
  });
});

describe('oauthctl audit with stdout piped', () => {
  it('prints the table on stdout as before, and on a terminal stderr one progress line redrawn in place, cleared at the end', async () => {
    const io = terminalIO(80, { stdout: false, stderr: true });
    expect(await audit(io)).toBe(1);
    expect(io.out()).toMatch(/^PROBE +STATUS +RFC +DETAIL\n/);
    expect(io.out().trimEnd().split('\n').slice(-3)).toEqual(['Failed: pkce-required', 'Warnings: pkce-plain', expect.stringMatching(/^\d+ passed, 1 failed, 1 warning/)]);
    const progress = screen(io.err());
    expect(progress.some((l) => /\bpkce-required\b/.test(l))).toBe(false);
    expect(io.err()).toContain(`${CLEAR_LINE}[5/5] redirect-uri-exact: `);
  });

  it('writes a plain line per probe on stderr when neither stream is a terminal, and --json is exactly the report', async () => {
    const plain = terminalIO(80, { stdout: false, stderr: false });
    await audit(plain);
    expect(plain.err()).toMatch(/^ *fail pkce-required$/m);
    expect(plain.err()).not.toContain('\x1b');
    const json = terminalIO(80, { stdout: true, stderr: true });
    await audit(json, '--json');
    const report = JSON.parse(json.out()) as { probes: { id: string }[]; summary: Record<string, number> };
    expect(report.probes.map((p) => p.id)).toEqual(PROBES.split(','));
    expect(report.summary.fail).toBe(1);
  });
});
