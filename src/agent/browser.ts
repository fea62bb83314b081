import { spawn } from 'node:child_process';
import type { UserAgent } from '../client/flows/user-agent.js';
import { FlowError } from '../errors.js';

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
 * A browser failure this soon after the launch is the launch failing (no display, no such browser), not
 * the user closing it: the flow ends at once. A later one is only named if the wait then times out.
 */
const LAUNCH_GRACE_MS = 5000;

/** Whether a browser can be shown here: BROWSER is set, or a desktop session exists (macOS, Windows and WSL always have one). */
export function canShowBrowser(env: NodeJS.ProcessEnv): boolean {
  if (env.BROWSER?.trim()) return true;
  if (process.platform !== 'linux' || env.WSL_DISTRO_NAME) return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

const TWO_WAYS_ON = 'log in without a browser here: --headless (the built-in user agent, with --username and --password), or --no-browser to print the URL and open it on another machine';

/**
 * The system browser: the command in BROWSER when set (URL as its last argument), else the platform's
 * default through `open`. In a flow that waits for the redirect (`browserFailed` given), a browser that
 * cannot start ends the flow at once with the ways on; elsewhere the URL is printed to open by hand.
 */
export const systemBrowserUserAgent: UserAgent = async ({ authorizationUrl, io, renderer, browserFailed }) => {
  const launchedAt = Date.now();
  const fail = (why: string) => {
    const fatal = Date.now() - launchedAt < LAUNCH_GRACE_MS;
    if (browserFailed) {
      if (!fatal) renderer.warn(why);
      browserFailed(new FlowError(why, TWO_WAYS_ON), fatal);
      return;
    }
    renderer.warn(`${why}; open the URL yourself`);
    io.stderr.write(`\n  ${authorizationUrl}\n\n`);
  };
  if (!canShowBrowser(io.env)) {
    fail('no browser can be shown here: no BROWSER, DISPLAY or WAYLAND_DISPLAY (no desktop session)');
    return;
  }
  const command = io.env.BROWSER?.trim();
  if (command) {
    const [file, ...args] = browserArgv(command, authorizationUrl);
    if (!file) {
      fail('BROWSER is empty');
      return;
    }
    renderer.info(`opening the browser (${file})`);
    await new Promise<void>((resolve) => {
      const child = spawn(file, args, { stdio: 'ignore', env: io.env });
      child.once('error', (err) => {
        fail(`cannot run BROWSER ${JSON.stringify(file)}: ${err.message}`);
        resolve();
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code) => {
        if (code !== 0 && code !== null) fail(`BROWSER ${JSON.stringify(file)} exited with status ${code}`);
      });
      child.unref();
    });
    return;
  }
  renderer.info('opening the system browser');
  try {
    const open = await loadOpen();
    const child = await open(authorizationUrl);
    child.once('error', (err) => fail(`cannot open a browser: ${err.message}`));
    // xdg-open and its kin start, then fail (no display, no browser): only the exit status tells.
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) fail(`the system browser could not be started (${child.spawnfile} exited with status ${code})`);
    });
    child.unref();
  } catch (err) {
    fail(`cannot open a browser: ${err instanceof Error ? err.message : String(err)}`);
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
