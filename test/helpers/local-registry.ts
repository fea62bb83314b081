import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * An npm registry on 127.0.0.1 that serves the packages installed in a node_modules tree (every copy,
 * nested ones included). A package whose tarball npm's cache holds (by the integrity the tree's
 * `.package-lock.json` records) is served as those very bytes, so that a lockfile's integrity matches
 * and `npm install` in a clone works; any other is packed on demand with tar. `npm install --registry
 * URL` then installs without the internet, exactly as it would from registry.npmjs.org.
 */
export interface LocalRegistry {
  url: string;
  close(): Promise<void>;
}

interface PackageCopy {
  dir: string;
  manifest: Record<string, unknown> & { name: string; version: string };
  /** The registry tarball's bytes, from npm's cache, and their integrity. */
  cached?: { file: string; integrity: string };
}

/** Where cacache keeps the content of an `sha512-...` integrity. */
function cachedTarball(npmCache: string, integrity: string): string | undefined {
  const m = /^sha512-([A-Za-z0-9+/=]+)$/.exec(integrity);
  if (!m) return undefined;
  const hex = Buffer.from(m[1]!, 'base64').toString('hex');
  const file = join(npmCache, '_cacache', 'content-v2', 'sha512', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
  return existsSync(file) ? file : undefined;
}

/** name@version -> the integrity npm recorded when it installed the tree. */
function recordedIntegrity(nodeModules: string): Map<string, string> {
  const file = join(nodeModules, '.package-lock.json');
  const out = new Map<string, string>();
  if (!existsSync(file)) return out;
  const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, { name?: string; version?: string; integrity?: string }> };
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (entry.version && entry.integrity) out.set(`${name}@${entry.version}`, entry.integrity);
  }
  return out;
}

function collectPackages(nodeModules: string, into: Map<string, Map<string, PackageCopy>>): void {
  if (!existsSync(nodeModules)) return;
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const dirs = entry.startsWith('@') ? readdirSync(join(nodeModules, entry)).map((n) => join(nodeModules, entry, n)) : [join(nodeModules, entry)];
    for (const dir of dirs) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as PackageCopy['manifest'];
      if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string') continue;
      const versions = into.get(manifest.name) ?? new Map<string, PackageCopy>();
      versions.set(manifest.version, { dir, manifest });
      into.set(manifest.name, versions);
      collectPackages(join(dir, 'node_modules'), into);
    }
  }
}

export async function startLocalRegistry(nodeModules: string, npmCache = process.env.npm_config_cache ?? join(homedir(), '.npm')): Promise<LocalRegistry> {
  const packages = new Map<string, Map<string, PackageCopy>>();
  collectPackages(nodeModules, packages);
  const integrity = recordedIntegrity(nodeModules);
  for (const [name, versions] of packages) {
    for (const [version, copy] of versions) {
      const recorded = integrity.get(`${name}@${version}`);
      const file = recorded && cachedTarball(npmCache, recorded);
      if (recorded && file) copy.cached = { file, integrity: recorded };
    }
  }
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/').slice(1);
    const tarball = /^(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(path);
    if (tarball) {
      const copy = packages.get(tarball[1] ?? '')?.get(tarball[2] ?? '');
      if (!copy) return void res.writeHead(404).end();
      if (copy.cached) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(copy.cached.file));
      const body = execFileSync('tar', ['-czf', '-', '--exclude=./node_modules', '--transform', 's,^\\.,package,', '-C', copy.dir, '.']);
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    }
    const versions = packages.get(path);
    if (!versions) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const doc = {
      name: path,
      'dist-tags': { latest: [...versions.keys()].sort().at(-1) },
      versions: Object.fromEntries(
        [...versions].map(([version, { manifest, ...copy }]) => [
          version,
          { ...manifest, scripts: {}, dist: { tarball: `${base}/${path}/-/${path.split('/').pop() ?? path}-${version}.tgz`, ...(copy.cached && { integrity: copy.cached.integrity }) } },
        ]),
      ),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
