// The command line runs from one bundled file with a V8 code cache (docs/ARCHITECTURE.md, "How the
// command line starts"). These check that what `npm run build` made is what runs, and that the cache
// it made is one this Node accepts (a stale cache would cost start-up time, silently). import() of an ES
// module package from the bundle (`open`) is covered by test/daily/browser-fallback.test.ts.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const LOADER = join(ROOT, 'bin', 'load-cli.js');

function node(code: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the bundled command line', () => {
  it('bin/oauthctl.js is CommonJS and loads dist/oauthctl.cjs, whose code cache is newer than the bundle', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'bin', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    expect(readFileSync(join(ROOT, 'bin', 'oauthctl.js'), 'utf8')).toMatch(/require\('\.\/load-cli\.js'\)/);
    expect(statSync(join(ROOT, 'dist', 'oauthctl.cjs.v8-cache')).mtimeMs).toBeGreaterThanOrEqual(statSync(join(ROOT, 'dist', 'oauthctl.cjs')).mtimeMs);
  });

  it('the code cache made at build time is accepted by this Node, and the CLI runs from it', () => {
    const r = node(
      `const { loadCli } = require(${JSON.stringify(LOADER)}); const { cli, script } = loadCli('code-cache');` +
        `console.log(JSON.stringify({ rejected: script.cachedDataRejected, exports: Object.keys(cli).sort() }));`,
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rejected: false, exports: ['main', 'warmUp'] });
  });

  it('a cache that does not match the bundle is rejected by V8 and the CLI still runs (compiled afresh)', () => {
    const r = node(
      `const fs = require('node:fs'); const CODE_CACHE = ${JSON.stringify(join(ROOT, 'dist', 'oauthctl.cjs.v8-cache'))};` +
        `const real = fs.readFileSync; fs.readFileSync = (f, ...a) => f === CODE_CACHE ? Buffer.from('not a V8 code cache') : real(f, ...a);` +
        `const { cli, script } = require(${JSON.stringify(LOADER)}).loadCli('code-cache');` +
        `cli.warmUp([['pkce', '--json']], {}).then((codes) => console.log(JSON.stringify({ rejected: script.cachedDataRejected, codes })));`,
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rejected: true, codes: [0] });
  });
});
