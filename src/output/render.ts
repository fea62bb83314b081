import kleur from 'kleur';
import type { IO } from './io.js';
import { colorEnabled } from './io.js';

/** Human narration on stderr, coloured only where colour is allowed. */
export interface Renderer {
  readonly color: boolean;
  readonly verbose: boolean;
  readonly showSecrets: boolean;
  /** A step of the flow: `==> Authorization request`. */
  step(title: string): void;
  /** A detail line under a step. */
  info(text: string): void;
  ok(text: string): void;
  warn(text: string): void;
  /** Only with --verbose. */
  trace(text: string): void;
  paint: kleur.Kleur;
}

export interface RenderOptions {
  verbose?: boolean | undefined;
  color?: boolean | undefined;
  showSecrets?: boolean | undefined;
}

export function createRenderer(io: IO, options: RenderOptions = {}): Renderer {
  const color = colorEnabled(io, options.color);
  // kleur keeps its switch on the module; set it for this renderer's use.
  const paint = kleur;
  paint.enabled = color;
  const write = (line: string) => io.stderr.write(`${line}\n`);
  return {
    color,
    verbose: options.verbose === true,
    showSecrets: options.showSecrets === true,
    paint,
    step: (title) => write(paint.bold().cyan(`==> ${title}`)),
    info: (text) => write(`    ${text}`),
    ok: (text) => write(paint.green(`    ✓ ${text}`)),
    warn: (text) => write(paint.yellow(`warning: ${text}`)),
    trace: (text) => {
      if (options.verbose) write(paint.gray(text));
    },
  };
}

/** Exactly one JSON document on stdout (--json). */
export function printJson(io: IO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
