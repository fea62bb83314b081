import { escapeLogValue } from './escape.js';
import type { OutStream } from './io.js';

export interface Spinner {
  stop(): void;
}

/** Streams whose spinners must not draw for now (a question is being asked there): how many holds each. */
const holds = new WeakMap<OutStream, number>();

/**
 * Keeps any spinner on `stream` from drawing (its line cleared) until the returned release is called:
 * a prompt on the same terminal is asked without frames drawn over it.
 */
export function holdSpinner(stream: OutStream): () => void {
  holds.set(stream, (holds.get(stream) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds.set(stream, (holds.get(stream) ?? 1) - 1);
  };
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

/**
 * A one-line spinner on a TTY, redrawn in place; elsewhere, on a terminal that says it cannot move
 * the cursor (TERM=dumb: Emacs shells, some CI logs) and with colour off (NO_COLOR, which --no-color
 * sets: stderr then holds no ESC at all), the text is printed once.
 * `text` is called each frame so it can show a countdown. While it spins, anything else written to the
 * stream (the headless agent's steps, a warning) first clears the spinner's line, so the two never run
 * together; the next frame draws the spinner again below. The text often holds a server's value (a
 * verification URI, a redirect URI): every frame is escaped as one log line, so no escape sequence,
 * newline or carriage return of it reaches the terminal.
 */
export function startSpinner(stream: OutStream, text: () => string, env: NodeJS.ProcessEnv = {}): Spinner {
  const line = () => escapeLogValue(text());
  const colourOff = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  if (!stream.isTTY || env.TERM === 'dumb' || colourOff) {
    stream.write(`${line()}\n`);
    return { stop: () => undefined };
  }
  const write = stream.write;
  const writeRaw = write.bind(stream) as (chunk: string) => boolean;
  let frame = 0;
  let drawn = false;
  const draw = () => {
    if ((holds.get(stream) ?? 0) > 0) {
      if (drawn) writeRaw(CLEAR_LINE);
      drawn = false;
      return;
    }
    writeRaw(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${line()}`);
    drawn = true;
  };
  stream.write = function writeAboveSpinner(this: OutStream, ...args: Parameters<OutStream['write']>) {
    if (drawn) {
      writeRaw(CLEAR_LINE);
      drawn = false;
    }
    return write.apply(stream, args);
  } as OutStream['write'];
  draw();
  const timer = setInterval(draw, 100);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write = write;
      if (drawn) writeRaw(CLEAR_LINE);
    },
  };
}

/** Time left in a countdown, in the one format every countdown uses: `4:05`. */
export function formatTimeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
