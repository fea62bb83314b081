import { spawn } from 'node:child_process';
import type { UserAgent } from '../client/user-agent.js';

/**
 * Splits a BROWSER command like a POSIX shell would for simple cases: whitespace separates words,
 * single quotes keep everything, double quotes keep everything but \" and \\, a backslash escapes one character.
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (command[i + 1] === '"' || command[i + 1] === '\\')) word += command[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The argv for BROWSER: the URL replaces a `%s` word, or is appended as the last argument. */
export function browserArgv(command: string, url: string): string[] {
  const words = splitCommand(command);
  if (words.some((w) => w.includes('%s'))) return words.map((w) => w.replace(/%s/g, url));
  return [...words, url];
}

/**
 * The system browser: the command in BROWSER when set (URL as its last argument), else the platform's
 * default through `open`. When nothing can be launched, the URL is printed and the flow keeps waiting.
 */
export const systemBrowserUserAgent: UserAgent = async ({ authorizationUrl, io, renderer }) => {
  const fallback = (why: string) => {
    renderer.warn(`${why}; open the URL yourself`);
    io.stderr.write(`\n  ${authorizationUrl}\n\n`);
  };
  const command = io.env.BROWSER?.trim();
  if (command) {
    const [file, ...args] = browserArgv(command, authorizationUrl);
    if (!file) {
      fallback('BROWSER is empty');
      return;
    }
    renderer.info(`opening the browser (${file})`);
    await new Promise<void>((resolve) => {
      const child = spawn(file, args, { stdio: 'ignore', env: io.env });
      child.once('error', (err) => {
        fallback(`cannot run BROWSER ${JSON.stringify(file)}: ${err.message}`);
        resolve();
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code) => {
        if (code !== 0 && code !== null) fallback(`BROWSER ${JSON.stringify(file)} exited with status ${code}`);
      });
      child.unref();
    });
    return;
  }
  renderer.info('opening the system browser');
  try {
    const open = await loadOpen();
    const child = await open(authorizationUrl);
    child.once('error', (err) => fallback(`cannot open a browser: ${err.message}`));
    // xdg-open and its kin start, then fail (no display, no browser): only the exit status tells.
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) fallback(`the system browser could not be started (${child.spawnfile} exited with status ${code})`);
    });
    child.unref();
  } catch (err) {
    fallback(`cannot open a browser: ${err instanceof Error ? err.message : String(err)}`);
  }
};

type Open = typeof import('open').default;

/**
 * The `open` package's function. `open` is an ES module; in the bundled CLI (dist/oauthctl.cjs) import()
 * becomes require(), whose result is the module namespace itself, so its default export is one level down.
 */
async function loadOpen(): Promise<Open> {
  const imported = (await import('open')) as { default: Open | { default: Open } };
  return typeof imported.default === 'function' ? imported.default : imported.default.default;
}
