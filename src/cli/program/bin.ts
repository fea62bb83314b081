import { discardingStream, processIO, withIO, type IO } from '../../output/io.js';
import { run } from './main.js';

/**
 * The entry point of the bundled CLI (dist/oauthctl.cjs, loaded by bin/oauthctl.js): runs the command,
 * waits for a slow stdout consumer, and exits with the command's code.
 */
export async function main(argv: readonly string[]): Promise<never> {
  // The process's own start: a run that was slow to start still knows what happened since it was asked for.
  const code = await run(argv, withIO(processIO(), { startedAt: Date.now() - process.uptime() * 1000 }));
  // Pipes, files and terminals are written synchronously on Linux and macOS; wait for a slow consumer otherwise.
  if (process.stdout.writableNeedDrain) await new Promise((resolve) => process.stdout.once('drain', resolve));
  process.exit(code);
}

/**
 * Runs commands in this process with their output discarded, so that their code is compiled once at
 * build time and kept in the V8 code cache next to the bundle (scripts/build-cli.mjs).
 */
export async function warmUp(commands: readonly (readonly string[])[], env: NodeJS.ProcessEnv): Promise<number[]> {
  const codes: number[] = [];
  for (const argv of commands) {
    const io: IO = withIO(processIO(), { stdout: discardingStream(), stderr: discardingStream(), env });
    codes.push(await run(argv, io));
  }
  return codes;
}
