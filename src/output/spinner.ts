import type { OutStream } from './io.js';

export interface Spinner {
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A one-line spinner on a TTY, redrawn in place; elsewhere the text is printed once.
 * `text` is called each frame so it can show a countdown.
 */
export function startSpinner(stream: OutStream, text: () => string): Spinner {
  if (!stream.isTTY) {
    stream.write(`${text()}\n`);
    return { stop: () => undefined };
  }
  let frame = 0;
  const draw = () => {
    stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text()}`);
  };
  draw();
  const timer = setInterval(draw, 100);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
