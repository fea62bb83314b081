import { basename } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { colorEnabled, type IO } from '../../output/io.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';

export interface TraceOptions extends CommonOptions {
  html?: string;
  check?: boolean;
  json?: boolean;
}

/** A HAR larger than this is refused: a flow's trace is a few hundred kilobytes. */
const MAX_HAR_BYTES = 64 * 1024 * 1024;
const DEFAULT_WIDTH = 100;

/**
 * `oauthctl trace FILE`: a recorded flow (`--trace FILE`, or any HAR 1.2 file) as a sequence diagram,
 * text on stdout or one HTML page with --html; --check lists what looks wrong (exit 1 when something does).
 */
export async function runTrace(file: string, options: TraceOptions, io: IO): Promise<number> {
  const [{ readRegularFileIfExists, writeFileAtomic, NotAReadableFileError }, { readHar, NotAHarError }, { traceDiagram }, { renderSequenceText }, { createRenderer, printJson }] = await Promise.all([
    import('../../store/atomic-file.js'),
    import('../../output/har-read.js'),
    import('../../output/trace-diagram.js'),
    import('../../output/sequence-diagram.js'),
    import('../../output/render.js'),
  ]);
  let source: string | undefined;
  try {
    source = await readRegularFileIfExists(file, MAX_HAR_BYTES);
  } catch (err) {
    if (err instanceof NotAReadableFileError) throw new UsageError(err.message, 'give the HAR file that --trace wrote');
    throw err;
  }
  if (source === undefined) throw new UsageError(`no such file: ${file}`, 'record one with --trace FILE on any command that talks to a server');
  let trace;
  try {
    trace = readHar(source);
  } catch (err) {
    if (err instanceof NotAHarError) throw new UsageError(`${file} is not a HAR file: ${err.message}`, 'give a file written by --trace, or a browser\'s "Save all as HAR"');
    throw err;
  }
  const diagram = traceDiagram(trace);
  const findings = options.check ? (await import('../../audit/trace-check.js')).checkTrace(trace) : undefined;
  if (options.html !== undefined) {
    const { renderTraceHtml } = await import('../../output/trace-html.js');
    await writeFileAtomic(options.html, renderTraceHtml(trace, { title: `oauthctl trace of ${basename(file)}` }), { mode: 0o600 });
  }
  if (options.json) {
    printJson(io, { exchanges: trace.entries.length, lifelines: diagram.lifelines, messages: diagram.messages, ...(findings ? { findings } : {}) });
  } else {
    const renderer = createRenderer(io, options);
    if (options.html === undefined && findings === undefined) {
      const width = io.stdout.isTTY === true && io.stdout.columns ? io.stdout.columns : Number(io.env.COLUMNS) || DEFAULT_WIDTH;
      const color = io.stdout.isTTY === true && colorEnabled(io, options.color);
      io.stdout.write(renderSequenceText(diagram, width, (text, failed) => (failed && color ? `\x1b[31m${text}\x1b[39m` : text)));
    }
    if (options.html !== undefined) renderer.ok(`wrote ${options.html}: open it in a browser`);
    if (findings) {
      const { escapeLogValue } = await import('../../output/escape.js');
      for (const f of findings) io.stdout.write(`✗ ${f.id} (exchange ${f.exchange}, ${f.rfc}): ${escapeLogValue(f.detail)}\n`);
      if (findings.length === 0) io.stdout.write('✓ nothing looks wrong: state, PKCE, redirect URI, tokens in URLs and iss checked\n');
    }
  }
  return findings !== undefined && findings.length > 0 ? 1 : 0;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('trace')
    .description('Show a recorded flow (a HAR file from --trace) as a sequence diagram; --html writes it as a page, --check lists what looks wrong.')
    .argument('<FILE>', 'the HAR file (written by --trace FILE, or saved from a browser)')
    .option('--html <OUT>', 'write one self-contained HTML page: the diagram, each arrow opening its request and response')
    .option('--check', 'list what looks wrong in the flow (state, PKCE, redirect URI, tokens in URLs, iss), each with its RFC section; exit 1 when something does')
    .option('--json', 'print the diagram (and the findings of --check) as JSON');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --scope photo --trace cc.har
  $ oauthctl trace cc.har
  $ oauthctl trace cc.har --html cc.html
  $ oauthctl trace cc.har --check --json

Exit codes: 0 the file was read (and --check found nothing), 1 --check found something, 2 the file is not a HAR.`,
    )
    .action(async (file: string, options: TraceOptions, command: Command) => {
      setExitCode(command, await runTrace(file, options, io));
    });
}
