import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { runCli } from './helpers/io.js';

const has = (shell: string) => ['/bin', '/usr/bin', '/usr/local/bin'].some((d) => existsSync(join(d, shell)));
let dir: string;
let env: Record<string, string>;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-completion-'));
  // `oauthctl` on PATH for the scripts' dynamic profile names.
  const bin = join(dir, 'bin');
  execFileSync('mkdir', ['-p', bin]);
  writeFileSync(join(bin, 'oauthctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'oauthctl'), 0o755);
  env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config') };
  await runCli(['profile', 'add', 'work', '--issuer', 'https://id.example.com', '--client-id', 'cli'], env);
  await runCli(['profile', 'add', 'mock', '--auth-url', 'http://127.0.0.1:9000', '--client-id', 'photo-cli'], env);
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell], env);
    expect(r.code).toBe(0);
    scripts[shell] = r.stdout;
    writeFileSync(join(dir, `completion.${shell}`), r.stdout);
  }
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs bash's completion function for a command line (the last word is being completed). */
function bashComplete(words: string[]): string[] {
  const script = `source ${JSON.stringify(join(dir, 'completion.bash'))}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _oauthctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', script], { env, encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('completion', () => {
  it('covers every command and the options each defines, in all three shells', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      for (const command of ['pkce', 'url', 'login', 'exchange', 'refresh', 'call', 'serve-mock', 'demo', 'profile', 'token', 'status', 'logout', 'listen', 'decode', 'completion']) {
        expect(scripts[shell], `${shell} lacks ${command}`).toContain(command);
      }
      for (const option of ['code-challenge-method', 'client-secret-env', 'redirect-url', 'jwks-url', 'no-revoke', 'manual']) {
        expect(scripts[shell], `${shell} lacks --${option}`).toContain(option);
      }
    }
  });

  it('rejects an unknown shell with exit 2', async () => {
    const r = await runCli(['completion', 'tcsh'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown shell "tcsh" \(use one of bash, zsh, fish\)/);
  });

  it.skipIf(!has('bash'))('bash: completes commands, subcommands, options, fixed values and profile names', () => {
    expect(execFileSync('bash', ['-n', join(dir, 'completion.bash')]).toString()).toBe('');
    expect(bashComplete(['oauthctl', 'lo'])).toEqual(['login', 'logout']);
    expect(bashComplete(['oauthctl', 'profile', ''])).toEqual(expect.arrayContaining(['list', 'show', 'add', 'remove']));
    expect(bashComplete(['oauthctl', 'login', '--code-ch'])).toEqual(['--code-challenge-method']);
    expect(bashComplete(['oauthctl', 'login', '--auth-method', 'client_'])).toEqual(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
    expect(bashComplete(['oauthctl', 'token', '--profile', ''])).toEqual(['work', 'mock']);
    expect(bashComplete(['oauthctl', 'profile', 'add', 'x', '--client-secret'])).toEqual(['--client-secret', '--client-secret-env']);
    // Options whose value is a <FILE> complete file names (run from the repository root).
    expect(bashComplete(['oauthctl', 'login', '--signing-key', 'fixtures/mock/photo-jwt.k'])).toEqual(['fixtures/mock/photo-jwt.key.pem']);
    expect(bashComplete(['oauthctl', 'call', '--dpop-key', 'fixtures/mock/photo-self.c'])).toEqual(['fixtures/mock/photo-self.cert.pem']);
  });

  it.skipIf(!has('zsh'))('zsh: the script parses', () => {
    expect(scripts.zsh).toMatch(/^#compdef oauthctl/);
    execFileSync('zsh', ['-n', join(dir, 'completion.zsh')]);
    expect(scripts.zsh).toContain("'decode:show a JWT'\\''s header");
  });

  it.skipIf(!has('fish'))('fish: completes commands, subcommands, option values and profile names', () => {
    const complete = (line: string) =>
      execFileSync('fish', ['-c', `source ${JSON.stringify(join(dir, 'completion.fish'))}; complete -C ${JSON.stringify(line)}`], { env, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(complete('oauthctl lo')).toEqual(['login', 'logout']);
    expect(complete('oauthctl profile ')).toEqual(['add', 'list', 'remove', 'show']);
    expect(complete('oauthctl login --auth-method ')).toEqual([
      'client_secret_basic',
      'client_secret_jwt',
      'client_secret_post',
      'none',
      'private_key_jwt',
      'self_signed_tls_client_auth',
      'tls_client_auth',
    ]);
    expect(complete('oauthctl status --profile ').sort()).toEqual(['mock', 'work']);
  });
});
