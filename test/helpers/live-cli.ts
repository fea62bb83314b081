import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, cliEnv, ROOT } from './cli.js';

/** The built CLI running in the background: its output as it comes, and a wait for a line. */
export interface RunningCli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the match once stderr matches the pattern; rejects if the command ends first. */
  waitForStderr: (pattern: RegExp) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  /** Ends it (SIGTERM) if it is still running, and waits for it. */
  stop: () => Promise<void>;
}

const running = new Set<RunningCli>();

/** Spawns `node bin/oauthctl.js ARGS` with the tests' minimal environment (cliEnv) plus `env`; stdin is closed. */
export function startCli(args: readonly string[], env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const wakers = new Set<() => void>();
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      ended = true;
      for (const w of wakers) w();
      resolve(code);
    }),
  );
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const w of wakers) w();
  });
  child.stdin!.end();
  const cli: RunningCli = {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitForStderr(pattern) {
      for (;;) {
        const m = pattern.exec(err);
        if (m) return m;
        if (ended) throw new Error(`the command ended before its stderr matched ${pattern}:\n${err}`);
        await new Promise<void>((wake) => {
          const w = () => {
            wakers.delete(w);
            wake();
          };
          wakers.add(w);
        });
      }
    },
    exited,
    async stop() {
      if (!ended) child.kill('SIGTERM');
      await exited;
      running.delete(cli);
    },
  };
  running.add(cli);
  return cli;
}

/** Stops every command startCli started that is still running (for afterEach). */
export async function stopAllClis(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop()));
}
