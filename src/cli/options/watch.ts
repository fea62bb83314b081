import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { HarRecorder } from '../../output/har.js';
import type { IO } from '../../output/io.js';
import { createRenderer } from '../../output/render.js';
import { parseInteger } from '../program/command.js';

/** `--ui`, `--ui-keep SECONDS` and `--step` as commander gives them. */
export interface WatchOptions {
  ui?: boolean | undefined;
  uiKeep?: number | undefined;
  step?: boolean | undefined;
}

/**
 * Watching and steering a flow (docs/ui.md), on a command that talks to a server: this one call in its
 * registration (addHttpTimeoutOption makes it), and main.ts starts the page or the terminal stops
 * before the command's action. The hooks are in the client's HTTP layer and the recorder, so the
 * command itself does nothing more.
 */
export function addWatchOptions(cmd: Command): Command {
  return cmd
    .option('--ui', 'watch the flow live on a local page (127.0.0.1, an unguessable address printed as `ui: URL`, opened in the browser unless --no-browser or --headless)')
    .option('--ui-keep <SECONDS>', 'with --ui: keep the page this long after the command ends', parseInteger('--ui-keep', 1, 3600))
    .option('--step', 'stop before each request of the flow: send it, edit it first, skip it or abort (on the --ui page, else on the terminal)');
}

/** A command's --ui / --step under way. */
export interface WatchSession {
  /** The command has ended: the page shows how, stays --ui-keep seconds, then closes. */
  end(code: number, failure?: unknown): Promise<void>;
}

/** Starts what the options ask for; undefined when they ask for nothing. */
export async function startWatch(action: Command, io: IO, version: string): Promise<WatchSession | undefined> {
  const opts = action.opts<WatchOptions & { showSecrets?: boolean; headless?: boolean; browser?: boolean; browserDriver?: string; quiet?: boolean }>();
  if (opts.ui !== true && opts.step !== true) {
    if (opts.uiKeep !== undefined) throw new UsageError('--ui-keep needs --ui', 'add --ui, or leave --ui-keep out');
    return undefined;
  }
  if (opts.uiKeep !== undefined && opts.ui !== true) throw new UsageError('--ui-keep needs --ui', 'add --ui, or leave --ui-keep out');
  if (opts.step === true && opts.ui !== true && io.stdin.isTTY !== true) {
    throw new UsageError('--step needs a terminal to ask at, and stdin is not one', 'run it on a terminal, or add --ui to step on the page');
  }
  if (opts.step === true && opts.ui !== true && opts.quiet === true) {
    throw new UsageError('--step asks on stderr, which -q silences', 'leave -q out, or add --ui to step on the page');
  }
  const recorder = (io.har ??= new HarRecorder());
  const showSecrets = opts.showSecrets === true;
  if (opts.ui !== true) {
    recorder.stepper = (await import('../login/step-terminal.js')).terminalStepper(io, showSecrets);
    return { end: async () => undefined };
  }
  const { startUiServer } = await import('../../client/ui/server.js');
  const server = await startUiServer({ recorder, title: `oauthctl ${commandLine(action)}`, showSecrets, version });
  if (opts.step === true) recorder.stepper = server.stepper;
  io.stderr.write(`ui: ${server.url}\n`);
  if (opts.browser !== false && opts.headless !== true && opts.browserDriver === undefined) {
    const { systemBrowserUserAgent } = await import('../../agent/browser.js');
    const controller = new AbortController();
    await systemBrowserUserAgent({ authorizationUrl: server.url, redirectUri: '', signal: controller.signal, io, renderer: createRenderer(io) });
  }
  return {
    async end(code, failure) {
      recorder.end(code, failure === undefined ? undefined : failure instanceof Error ? failure.message : String(failure));
      if (opts.uiKeep !== undefined) {
        io.stderr.write(`ui: the page stays for ${opts.uiKeep} s (Ctrl-C to leave now)\n`);
        await new Promise((resolve) => setTimeout(resolve, opts.uiKeep! * 1000));
      }
      await server.close();
    },
  };
}

/** `login` or `audit`: the page's title names the command. */
function commandLine(action: Command): string {
  const names: string[] = [];
  for (let c: Command | null = action; c && c.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
