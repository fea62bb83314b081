import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * An npm registry on 127.0.0.1 that serves the packages installed in a node_modules tree (every copy,
 * nested ones included), each packed on demand with tar. `npm install --registry URL` then installs a
 * packed tarball's dependencies without the internet, exactly as it would from registry.npmjs.org.
 */
export interface LocalRegistry {
  url: string;
  close(): Promise<void>;
}

interface PackageCopy {
  dir: string;
  manifest: Record<string, unknown> & { name: string; version: string };
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

export async function startLocalRegistry(nodeModules: string): Promise<LocalRegistry> {
  const packages = new Map<string, Map<string, PackageCopy>>();
  collectPackages(nodeModules, packages);
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/').slice(1);
    const tarball = /^(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(path);
    if (tarball) {
      const copy = packages.get(tarball[1] ?? '')?.get(tarball[2] ?? '');
      if (!copy) return void res.writeHead(404).end();
      const body = execFileSync('tar', ['-czf', '-', '--exclude=./node_modules', '--transform', 's,^\\.,package,', '-C', copy.dir, '.']);
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    }
    const versions = packages.get(path);
    if (!versions) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const doc = {
      name: path,
      'dist-tags': { latest: [...versions.keys()].sort().at(-1) },
      versions: Object.fromEntries(
        [...versions].map(([version, { manifest }]) => [version, { ...manifest, scripts: {}, dist: { tarball: `${base}/${path}/-/${path.split('/').pop() ?? path}-${version}.tgz` } }]),
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
