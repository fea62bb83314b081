// Every `oauthctl` example of the README, of every page of docs/ and of each command's --help runs as written
// against the mock (`serve-mock --port 9000 --auto-login alice`, started here in-process; when 9000 is
// taken, another port is put in its place in every example). The test is generic: it runs whatever
// the README and the help texts hold. Each block runs in order in one temporary HOME and directory.
// A block that needs another mock starts it itself with a background line
// (`oauthctl serve-mock --config ... --port 9100 &`): it runs on a free port, put in place of 9100 in
// the block's later lines, until the block ends.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { COMMANDS } from '../../src/cli/program/commands.js';
import { calculateCodeChallenge, generateCodeVerifier } from '../../src/oauth/pkce.js';
import { BIN, FAKE_BROWSER, ROOT } from '../helpers/cli.js';
import { extractHelpExamples, extractMarkdownBlocks, type ExampleBlock } from './extract-examples.js';

const DOC_PORT = 9000;
const CHROMIUM_USER = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'test', 'helpers', 'chromium-user.mjs'))}`;
const HAVE_ZSH = existsSync('/usr/bin/zsh') || existsSync('/bin/zsh');

/** Examples that cannot run here, each with the reason. Everything else runs. */
const CANNOT_RUN: { pattern: RegExp; reason: string; workflow?: boolean }[] = [
  {
    workflow: true,
    pattern: /^oauthctl /,
    reason:
      'a step of the GitHub Actions recipe: its account and secrets come from the step env: and the CI secrets, and the mock it starts in the background is what the test itself runs; its install is test/docs/package.test.ts, and the same commands run above as shell examples',
  },
  {
    pattern: /^oauthctl jwt-bearer --issuer https:\/\/login\.example\.com /,
    reason:
      "a workload's own JWT from its platform, for a real authorization server that trusts it: the runnable walk against the mock (fixtures/mock/workload.jsonc, the JWT minted by its named issuer ci) is docs/commands.md's",
  },
  {
    pattern: /127\.0\.0\.1:3000\/mcp/,
    reason:
      "the reader's own MCP server at port 3000 (docs/mcp.md, bring your own MCP server): the same commands run in test/cli/mcp/mcp-byo.test.ts against an MCP SDK server introspecting at serve-mock with fixtures/mock/byo-mcp.jsonc",
  },
  ...(HAVE_ZSH ? [] : [{ pattern: /completion zsh/, reason: 'zsh is not installed on this machine' }]),
];

const help = (args: string[]) => execFileSync(process.execPath, [BIN, ...args, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
const blocks: ExampleBlock[] = [
  ...extractMarkdownBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .flatMap((f) => extractMarkdownBlocks(readFileSync(join(ROOT, 'docs', f), 'utf8'), `docs/${f}`)),
  ...extractHelpExamples('oauthctl --help', help([])),
  ...Object.keys({ ...COMMANDS, completion: null }).map((name) => extractHelpExamples(`oauthctl ${name} --help`, help([name]))[0]).filter((b): b is ExampleBlock => b !== undefined),
];

let mock: MockServer;
let binDir: string;
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice', port: DOC_PORT }).catch(() => createMockServer(undefined, { autoLogin: 'alice' }));
  binDir = mkdtempSync(join(tmpdir(), 'oauthctl-examples-bin-'));
  writeFileSync(join(binDir, 'oauthctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  // `npx oauthctl` in the README means the installed package: the same CLI.
  writeFileSync(join(binDir, 'npx'), `#!/bin/sh\n[ "$1" = oauthctl ] && shift\nexec oauthctl "$@"\n`);
  // `BROWSER=firefox ...` examples: a firefox that plays the browser (its flags ignored, the URL last),
  // since login stops at once when the browser it is given cannot be run.
  writeFileSync(join(binDir, 'firefox'), `#!/bin/sh\nfor url; do :; done\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'test', 'helpers', 'fake-browser.mjs'))} "$url"\n`);
  chmodSync(join(binDir, 'oauthctl'), 0o755);
  chmodSync(join(binDir, 'npx'), 0o755);
  chmodSync(join(binDir, 'firefox'), 0o755);
});
afterAll(async () => {
  await mock?.close();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

/** Mocks a block starts in the background (`oauthctl serve-mock ... &`): the doc's port -> the real one, and the process. */
const background = new Map<string, { port: string; child: ChildProcess }>();

/** The doc's port replaced by the mock's, when 9000 was taken, and by the port of each background mock of the block. */
function onMock(text: string): string {
  let out = text.replaceAll(`127.0.0.1:${DOC_PORT}`, `127.0.0.1:${mock.port}`);
  for (const [docPort, { port }] of background) out = out.replaceAll(`127.0.0.1:${docPort}`, `127.0.0.1:${port}`);
  return out;
}

/** A line that starts a mock in the background for the rest of its block, as a reader's shell would. */
const isBackgroundMock = (line: string) => /(^|\s)oauthctl serve-mock\b[^#]*&\s*(#.*)?$/.test(line);

/** Starts a background mock of the block on a free port, and resolves once it listens (its URL on stdout). */
function startBackgroundMock(line: string, env: Record<string, string>, cwd: string): Promise<Outcome> {
  const docPort = /--port (\d+)/.exec(line)?.[1] ?? '';
  const command = line.replace(/&\s*(#.*)?$/, '').replace(/--port \d+/, '--port 0');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `exec ${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const port = /https?:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
      if (port && !background.has(docPort)) {
        background.set(docPort, { port, child });
        resolve({ code: 0, stdout, stderr });
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

function stopBackgroundMocks(): void {
  for (const { child } of background.values()) {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  background.clear();
}

interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
}

/** A code from the auto-login mock, as a browser would bring it back. */
async function codeFor(clientId: string, redirectUri: string, verifier: string, scope = 'openid photo offline_access'): Promise<string> {
  const url = new URL(`${mock.authUrl}/authorize`);
  url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope, state: 'docs', code_challenge: calculateCodeChallenge(verifier), code_challenge_method: 'S256' }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  const code = new URL(res.headers.get('location') ?? 'http://x/').searchParams.get('code');
  if (!code) throw new Error(`no code from the mock for ${clientId}`);
  return code;
}

/** Fresh tokens of photo-web (a confidential client with a refresh token), for $ACCESS_TOKEN, $RT and $ID_TOKEN. */
async function freshTokens(): Promise<Tokens> {
  const verifier = generateCodeVerifier();
  const redirectUri = 'http://127.0.0.1:1/callback';
  const code = await codeFor('photo-web', redirectUri, verifier);
  const res = await fetch(`${mock.authUrl}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  return (await res.json()) as Tokens;
}

/** The variables the examples use, made fresh for each example that needs them. */
async function variablesFor(line: string, cwd: string): Promise<Record<string, string>> {
  const vars: Record<string, string> = { SECRET: 'photo-web-secret', WORK_SECRET: 'photo-web-secret', PW: 'wonderland', USER: 'alice' };
  if (/\$(ACCESS_TOKEN|RT|ID_TOKEN)\b/.test(line)) {
    const t = await freshTokens();
    Object.assign(vars, { ACCESS_TOKEN: t.access_token, RT: t.refresh_token ?? '', ID_TOKEN: t.id_token ?? '' });
  }
  if (/\$CODE\b/.test(line)) {
    vars.VERIFIER = generateCodeVerifier();
    vars.CODE = await codeFor('photo-cli', 'http://127.0.0.1:8765/callback', vars.VERIFIER);
  }
  if (/\$REDIRECT_URL\b/.test(line)) {
    // Where the browser would land for the request an earlier example saved with `url --save flow.json`.
    const saved = JSON.parse(readFileSync(join(cwd, 'flow.json'), 'utf8')) as { authorization_url: string };
    vars.REDIRECT_URL = (await fetch(saved.authorization_url, { redirect: 'manual' })).headers.get('location') ?? '';
  }
  return vars;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one example line in a shell. Long-running and interactive ones are driven as a person would:
 * a server is started on port 0 and stopped once it listens; an authorization URL printed for the user
 * is opened (or, for --manual, the redirect pasted); a listener gets one request.
 */
async function runExample(line: string, home: string, cwd: string): Promise<Outcome> {
  const isServer = /(^|\s)oauthctl serve-mock\b/.test(line);
  const command = onMock(isServer ? line.replace(/--port \d+/, '--port 0') : line);
  const user = /\boauthctl demo\b/.test(line) ? CHROMIUM_USER : FAKE_BROWSER;
  const env = {
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    NO_COLOR: '1',
    BROWSER: user,
    ...(await variablesFor(line, cwd)),
  };
  if (isBackgroundMock(line)) return startBackgroundMock(line, env, cwd);
  const shell = /completion zsh/.test(line) ? ['zsh', '-c', `autoload -U compinit && compinit -u && ${command}`] : ['bash', '-c', command];
  return new Promise((resolve, reject) => {
    const child = spawn(shell[0]!, shell.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let acted = false;
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const act = () => {
      if (acted) return;
      const listening = /Listening on (http:\/\/\S+)/.exec(stderr);
      const authorizationUrl = /^ {2}(https?:\/\/\S+\/authorize\?\S+)$/m.exec(stderr)?.[1];
      // Listening: its URL (http, or https with --tls), the --json line or the start-up text's last line (an --issuer-url names no address).
      if (isServer && /https?:\/\/127\.0\.0\.1:\d+|^\{"issuer":|^Press Ctrl\+C/m.test(stdout + stderr)) {
        acted = true;
        setTimeout(stop, 200);
      } else if (listening) {
        acted = true;
        void fetch(`${listening[1]}?code=docs-code&state=docs-state`).catch(reject);
      } else if (authorizationUrl && /--manual\b/.test(line)) {
        acted = true;
        void fetch(authorizationUrl, { redirect: 'manual' })
          .then((res) => child.stdin.end(`${res.headers.get('location') ?? ''}\n`))
          .catch(reject);
      } else if (authorizationUrl) {
        acted = true;
        const person = spawn('sh', ['-c', `${user} "$0"`, authorizationUrl], { env, stdio: 'ignore' });
        person.on('error', reject);
      }
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      act();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      act();
    });
    if (!/--manual\b/.test(line)) child.stdin.end();
    const timer = setTimeout(stop, 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The exit code an example's own comment promises (`# exits 1`), else 0. */
const expectedExit = (line: string) => Number(/#.*\bexits? (\d)\b/.exec(line)?.[1] ?? 0);

/** Profiles the block uses but does not create: made (and logged in) first, as the reader's own would be. */
async function prepareProfiles(block: ExampleBlock, home: string, cwd: string): Promise<void> {
  const text = block.examples.join('\n');
  const used = new Set([...text.matchAll(/(?:--profile |OAUTHCTL_PROFILE=)([\w.-]+)/g)].map((m) => m[1]!));
  for (const name of used) {
    if (new RegExp(`profile add ${name}\\b`).test(text)) continue;
    const client = name === 'work' ? '--client-id photo-web --client-secret-env WORK_SECRET' : '--client-id photo-cli';
    for (const setup of [`oauthctl profile add ${name} --auth-url http://127.0.0.1:${DOC_PORT} ${client} --scope "openid photo offline_access"`, `oauthctl login --profile ${name}`]) {
      const r = await runExample(setup, home, cwd);
      if (r.code !== 0) throw new Error(`setting up profile ${name} for ${block.source}: ${setup}\n${r.stderr}`);
    }
  }
}

describe.each(blocks.map((b) => [b.source, b] as const))('%s', (_source, block) => {
  let home: string;
  let cwd: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'oauthctl-examples-home-'));
    cwd = mkdtempSync(join(tmpdir(), 'oauthctl-examples-cwd-'));
    symlinkSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'));
    mkdirSync(join(cwd, 'reports'));
    // A fish user has this directory; the completion example writes into it.
    mkdirSync(join(home, '.config', 'fish', 'completions'), { recursive: true });
    if (!block.workflow) await prepareProfiles(block, home, cwd);
  }, 120_000);
  afterAll(() => {
    stopBackgroundMocks();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it.each(block.examples)('%s', async (line) => {
    const skip = CANNOT_RUN.find((c) => c.pattern.test(line) && (c.workflow ?? false) === (block.workflow ?? false));
    if (skip) {
      console.info(`not run (${skip.reason}): ${line}`);
      return;
    }
    const r = await runExample(line, home, cwd);
    expect(r.code, `example from ${block.source} failed:\n  ${line}\nexit ${r.code}; stderr:\n${r.stderr}`).toBe(expectedExit(line));
  }, 120_000);
});
