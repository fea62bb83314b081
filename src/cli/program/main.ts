import { Command, CommanderError } from 'commander';
import { CliError } from '../../errors.js';
import { escapeTerminal } from '../../output/escape.js';
import { discardingStream, processIO, withIO, type IO } from '../../output/io.js';
import { COMMANDS as WITHOUT_COMPLETION, COMPLETION_SUMMARY, type Entry } from './commands.js';
import type { TraceSession } from '../options/trace-file.js';
import type { WatchSession } from '../options/watch.js';
import { useHelpLayout } from './help.js';
import { VERSION } from './version.js';
import { environmentHelp } from '../options/environment.js';

/** The commands, and `completion`, which describes them (kept out of commands.ts, so that no import circles). */
const COMMANDS: Record<string, Entry> = {
  ...WITHOUT_COMPLETION,
  completion: { summary: COMPLETION_SUMMARY, load: () => import('./completion.js') },
};

/**
 * Builds the program. Only the command that runs is loaded with its options and code; the others are
 * listed by name and summary, which keeps `oauthctl pkce` and `oauthctl --help` fast.
 */
export async function buildProgram(argv: readonly string[], io: IO): Promise<Command> {
  const program = new Command('oauthctl')
    .description('Test and exercise OAuth 2.0 authorization-code flows, with and without PKCE, and run a mock authorization server.')
    .version(VERSION, '-V, --version')
    // Also before the command's name (`oauthctl -q token`), as each command takes it after.
    .option('-q, --quiet', 'nothing on stderr but the one line of a failure')
    .option('--no-color', 'no colour in the output (also NO_COLOR)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Errors are printed once, by run(), as one line with a hint.
      outputError: () => undefined,
    })
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl demo                                   # the whole flow against the built-in mock
  $ oauthctl login --issuer http://127.0.0.1:9000 --client-id photo-cli --scope openid
  $ oauthctl pkce --json
  $ oauthctl serve-mock --port 9000

Environment: ${environmentHelp()} (docs/configuration.md).

Run 'oauthctl <command> --help' for a command's options and examples.`,
    );

  const wanted = commandNameFrom(argv);
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (name === wanted) {
      const mod = await entry.load();
      mod.register(program, io);
      const registered = program.commands.find((c) => c.name() === name);
      if (registered) addNoColorEverywhere(registered);
    } else {
      program.command(name).description(entry.summary);
    }
  }
  useHelpLayout(program, io);
  return program;
}

/** `--no-color` on a command and each of its subcommands that does not declare it already: every command takes it. */
function addNoColorEverywhere(cmd: Command): void {
  if (!cmd.options.some((o) => o.long === '--no-color')) cmd.option('--no-color', 'no colour in the output (also NO_COLOR)');
  for (const sub of cmd.commands) addNoColorEverywhere(sub);
}

/** The first operand names the command; `help X` asks for X's help. */
function commandNameFrom(argv: readonly string[]): string | undefined {
  const operands = argv.filter((a) => !a.startsWith('-'));
  if (operands[0] === 'help') return operands[1];
  return operands[0];
}

/** Runs the CLI and returns the exit code. Never throws, never prints a stack trace. */
export async function run(argv: readonly string[], io: IO = processIO()): Promise<number> {
  // The commands write through their own copy of the IO: -q swaps its stderr for a sink, while the
  // one line of a failure still goes to the real stderr (reportError).
  const commandIO: IO = withIO(io);
  const program = await buildProgram(argv, commandIO);
  let trace: TraceSession | undefined;
  let watch: WatchSession | undefined;
  program.hook('preAction', async (_program, action) => {
    if (shareQuiet(program, action)) commandIO.stderr = discardingStream();
    // --no-color, before the command's name or after it, is NO_COLOR for whatever the command draws.
    if (action.opts<{ color?: boolean }>().color === false || program.opts<{ color?: boolean }>().color === false) commandIO.env = { ...commandIO.env, NO_COLOR: '1' };
    if (action.opts<{ trace?: unknown }>().trace !== undefined) trace = (await import('../options/trace-file.js')).startTrace(action, commandIO, VERSION);
    const { ui, step, uiKeep } = action.opts<{ ui?: unknown; step?: unknown; uiKeep?: unknown }>();
    if (ui !== undefined || step !== undefined || uiKeep !== undefined) watch = await (await import('../options/watch.js')).startWatch(action, commandIO, VERSION);
  });
  // Commands set process-independent exit codes through this slot.
  let code: number;
  let failure: unknown;
  try {
    await program.parseAsync([...argv], { from: 'user' });
    code = exitCodeOf(program);
  } catch (err) {
    failure = err;
    code = reportError(err, io, argv);
  }
  // --ui: the page shows how the command ended, and stays --ui-keep seconds.
  await watch?.end(code, failure);
  // --trace: written however the command ended (a failed flow is when it helps most).
  return trace
    ? trace.save().then(
        () => code,
        (err: unknown) => Math.max(code, reportError(err, io, argv)),
      )
    : code;
}

/**
 * Whether -q was given, before the command's name or after it; the command's own `quiet` option is set
 * either way. commander gives a `--quiet` after the name to the program, which also has it: a command
 * that reads options.quiet itself (serve-mock builds no log lines then) would otherwise never see it.
 */
export function shareQuiet(program: Command, action: Command): boolean {
  const quiet = action.opts<{ quiet?: boolean }>().quiet === true || program.opts<{ quiet?: boolean }>().quiet === true;
  if (quiet && action !== program) action.setOptionValue('quiet', true);
  return quiet;
}

function exitCodeOf(program: Command): number {
  const code = (program as Command & { oauthctlExitCode?: number }).oauthctlExitCode;
  return code ?? 0;
}

export function reportError(err: unknown, io: IO, argv: readonly string[] = []): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') return 0;
    const command = commandNameFrom(argv);
    const helpCmd = command && command in COMMANDS ? `oauthctl ${command} --help` : 'oauthctl --help';
    // commander puts its suggestion on a line of its own: one line, as every other failure.
    const message = err.message
      .replace(/^error: /, '')
      .replace(/\s*\(Did you mean ([^)]*)\)/, ' (did you mean $1)')
      .replace(/\s*\n\s*/g, ' ');
    io.stderr.write(`oauthctl: error: ${escapeTerminal(message)} (see '${helpCmd}')\n`);
    return 2;
  }
  if (err instanceof CliError) {
    io.stderr.write(`oauthctl: error: ${escapeTerminal(err.message)}${err.hint ? ` (${escapeTerminal(err.hint)})` : ''}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`oauthctl: error: ${escapeTerminal(message)}\n`);
  if (io.env.OAUTHCTL_DEBUG && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
  return 1;
}
