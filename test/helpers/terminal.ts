import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BIN, cliEnv } from './cli.js';

/** script(1) from util-linux: runs a command on a fresh pseudo-terminal, so its stdout and stderr are TTYs. */
export const HAS_SCRIPT = existsSync('/usr/bin/script');

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the built CLI on a terminal (`script -qec`): everything it wrote to stdout and stderr, as the
 * terminal received it. Each of `typing` is typed once the terminal has shown what its `when` matches
 * (after what the previous one matched), as a user answers the questions one by one.
 */
export function runCliOnTerminal(args: readonly string[], options: { env?: Record<string, string>; typing?: { when: RegExp; type: string }[] } = {}): Promise<{ code: number | null; shown: string }> {
  const cmd = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env: { ...cliEnv(options.env), TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const typing = [...(options.typing ?? [])];
    let shown = '';
    let seen = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      shown += d;
      const next = typing[0];
      const at = next ? shown.slice(seen).search(next.when) : -1;
      if (next && at >= 0) {
        seen += at + 1;
        typing.shift();
        child.stdin.write(next.type);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, shown }));
  });
}

/**
 * What the terminal showed is free of escape sequences and C1 controls, except the spinner's own
 * "clear the line" (CR, CSI 2K), which the CLI paints itself.
 */
export function terminalControls(shown: string): string[] {
  const rest = shown.replaceAll('\r\x1b[2K', '');
  return [...rest.matchAll(/[\x1b\x07\x7f-\x9f]/g)].map((m) => m[0]);
}
