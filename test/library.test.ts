import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

/** Runs an ES module in a fresh node and resolves with its exit code, or 'hung' when it is still running after `ms`. */
function runModule(source: string, ms: number): Promise<number | 'hung'> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, stdio: 'ignore' });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('hung');
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

describe('the package entry points', () => {
  it('exports the protocol steps and the mock server from the built package', async () => {
    const lib = await import('oauthctl');
    expect(lib.calculateCodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const server = await lib.createMockServer(undefined, { autoLogin: 'alice' });
    try {
      const metadata = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
      expect(metadata.issuer).toBe(server.issuer);
    } finally {
      await server.close();
    }
  });

  it("exports the mock alone at 'oauthctl/mock'", async () => {
    const mock = await import('oauthctl/mock');
    expect(typeof mock.createMockServer).toBe('function');
  });

  // The README's library snippet: nothing (key preload, signer, sweep timer) may keep the process alive.
  it('createMockServer then close() at once lets the process exit', async () => {
    const source = "import { createMockServer } from 'oauthctl/mock'; const mock = await createMockServer(undefined, { autoLogin: 'alice' }); await mock.close();";
    expect(await runModule(source, 15_000)).toBe(0);
  });

  it('a mock that signed a token, then closed, lets the process exit', async () => {
    const source = [
      "import { createMockServer } from 'oauthctl/mock';",
      "const mock = await createMockServer(undefined, { autoLogin: 'alice' });",
      "await (await fetch(mock.issuer + '/jwks')).text();",
      'await mock.close();',
    ].join(' ');
    expect(await runModule(source, 15_000)).toBe(0);
  });
});
