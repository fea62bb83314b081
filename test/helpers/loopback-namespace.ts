import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/**
 * A network namespace with only loopback (`unshare -rn`: a user namespace as root in it, and a new
 * network namespace whose `lo` is brought up), so that whatever runs inside can reach 127.0.0.1 and
 * nothing else: a connection to 169.254.169.254 or 10.0.0.1 fails at once (ENETUNREACH). Tests of
 * the mock's outbound policy run there, so that not one packet leaves the machine even when the code
 * under test is wrong. With `hosts`, /etc/hosts is replaced inside (a mount namespace too, `-m`): a
 * name can resolve to an internal address without any DNS server.
 */
/** Loopback up inside the namespace: iproute2, else net-tools. */
const LO_UP = '{ ip link set lo up 2>/dev/null || ifconfig lo up; }';

function probe(): string | undefined {
  const run = spawnSync('unshare', ['-rnm', 'sh', '-c', `${LO_UP} && echo up`], { encoding: 'utf8' });
  if (run.error) return `unshare is not available (${(run.error as NodeJS.ErrnoException).code ?? run.error.message})`;
  if (run.status !== 0 || run.stdout.trim() !== 'up') return `unshare -rnm, or bringing lo up inside it, failed here: ${run.stderr.trim() || `exit ${run.status}`}`;
  return undefined;
}

/** Why the namespace cannot be made here (then the tests skip, saying so), or undefined. */
export const LOOPBACK_NAMESPACE_UNAVAILABLE = probe();

/**
 * Runs `node --import tsx SCRIPT` (a TypeScript file of the repository) inside the namespace and
 * gives back its exit code, stdout and stderr.
 */
export function runInLoopbackNamespace(script: string, options: { hosts?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'oauthctl-netns-'));
  const hostsFile = join(dir, 'hosts');
  const lines = ['127.0.0.1 localhost', '::1 localhost', ...Object.entries(options.hosts ?? {}).map(([name, address]) => `${address} ${name}`)];
  writeFileSync(hostsFile, `${lines.join('\n')}\n`);
  const inside = `mount --bind "$1" /etc/hosts && ${LO_UP} && shift && exec "$@"`;
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-rnm', 'sh', '-c', inside, 'sh', hostsFile, process.execPath, '--import', 'tsx', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}
