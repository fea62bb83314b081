import kleur from 'kleur';
import type { IO } from './io.js';
import { colorEnabled } from './io.js';
import { BIDI_CONTROLS, escapeTerminal } from './escape.js';
import type { HarRecorder } from './har.js';

/** How a line is coloured (only where colour is allowed). */
export type Style = 'bold' | 'red' | 'green' | 'yellow' | 'gray';

/**
 * Human narration on stderr, coloured only where colour is allowed. Every text given to it is passed
 * through `escapeTerminal` before it is painted, so remote values (redirect parameters, token and
 * error responses, claims, page text) can be handed over as they came: this is the one place.
 */
export interface Renderer {
  readonly color: boolean;
  readonly verbose: boolean;
  readonly showSecrets: boolean;
  /** The command's --trace recorder (from its IO): HTTP clients made with this renderer record into it. */
  readonly har?: HarRecorder | undefined;
  /** A step of the flow: `==> Authorization request`. */
  step(title: string): void;
  /** A detail line under a step, optionally coloured. */
  info(text: string, style?: Style): void;
  /** A line without indent (a summary such as `status` prints). */
  line(text: string, style?: Style): void;
  ok(text: string): void;
  warn(text: string): void;
  /** Only with --verbose. */
  trace(text: string): void;
}

export interface RenderOptions {
  verbose?: boolean | undefined;
  color?: boolean | undefined;
  showSecrets?: boolean | undefined;
}

export function createRenderer(io: IO, options: RenderOptions = {}): Renderer {
  const color = colorEnabled(io, options.color);
  const paint = (style: Style | 'step', text: string): string => {
    const safe = escapeTerminal(text);
    if (!color) return safe;
    // kleur keeps its switch on the module: turned on only for this call.
    const before = kleur.enabled;
    kleur.enabled = true;
    try {
      return style === 'step' ? kleur.bold().cyan(safe) : kleur[style](safe);
    } finally {
      kleur.enabled = before;
    }
  };
  const write = (line: string) => io.stderr.write(`${line}\n`);
  return {
    color,
    verbose: options.verbose === true,
    showSecrets: options.showSecrets === true,
    har: io.har,
    step: (title) => write(paint('step', `==> ${title}`)),
    info: (text, style) => write(`    ${style ? paint(style, text) : escapeTerminal(text)}`),
    line: (text, style) => write(style ? paint(style, text) : escapeTerminal(text)),
    ok: (text) => write(paint('green', `    ✓ ${text}`)),
    warn: (text) => write(paint('yellow', `warning: ${text}`)),
    trace: (text) => {
      if (options.verbose) write(paint('gray', text));
    },
  };
}

/** Exactly one JSON document on stdout (--json). */
export function printJson(io: IO, value: unknown): void {
  io.stdout.write(`${jsonText(value)}\n`);
}

/** DEL, the C1 controls and the bidirectional ones: what JSON.stringify leaves raw that a terminal acts on. */
const JSON_UNSAFE = new RegExp(`[\\x7f-\\x9f${BIDI_CONTROLS}]`, 'g');

/**
 * JSON text that is also safe on a terminal: JSON.stringify escapes C0 controls but leaves DEL, the
 * C1 controls and the bidirectional controls raw; they are written as \u escapes, which parse back to
 * the very same value.
 */
export function jsonText(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
