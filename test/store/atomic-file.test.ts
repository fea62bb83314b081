import { spawn } from 'node:child_process';
import { mkdtempSync, promises as fs, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockTimeoutError, readFileIfExists, withFileLock, writeFileAtomic } from '../../src/store/atomic-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-atomic-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('writes a 0600 file and creates missing directories 0700', async () => {
    const path = join(dir, 'a', 'b', 'secret.json');
    await writeFileAtomic(path, '{"x":1}\n');
    expect(await fs.readFile(path, 'utf8')).toBe('{"x":1}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'a', 'b')).mode & 0o777).toBe(0o700);
  });

  it('replaces a file that was readable by others with a 0600 one and leaves no temporary files', async () => {
    const path = join(dir, 'f.json');
    writeFileSync(path, 'old', { mode: 0o644 });
    await writeFileAtomic(path, 'new');
    expect(await fs.readFile(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('never shows a reader a partial file while many writes race', async () => {
    const path = join(dir, 'race.json');
    const bodies = Array.from({ length: 40 }, (_, i) => JSON.stringify({ i, pad: 'y'.repeat(50_000 + i) }));
    const reads: string[] = [];
    await Promise.all([
      ...bodies.map((b) => writeFileAtomic(path, b)),
      (async () => {
        for (let n = 0; n < 40; n++) {
          const text = await readFileIfExists(path);
          if (text !== undefined) reads.push(text);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })(),
    ]);
    for (const text of [...reads, await fs.readFile(path, 'utf8')]) expect(bodies).toContain(text);
    expect(readdirSync(dir)).toEqual(['race.json']);
  });
});

describe('withFileLock', () => {
  it('lets only one holder in at a time, so read-modify-write loses no update', async () => {
    const path = join(dir, 'counter');
    await fs.writeFile(path, '0');
    await Promise.all(
      Array.from({ length: 25 }, () =>
        withFileLock(path, async () => {
          const n = Number(await fs.readFile(path, 'utf8'));
          await new Promise((resolve) => setTimeout(resolve, 1));
          await fs.writeFile(path, String(n + 1));
        }),
      ),
    );
    expect(await fs.readFile(path, 'utf8')).toBe('25');
    expect(readdirSync(dir)).toEqual(['counter']);
  });

  it('takes over a lock left by a process that has exited', async () => {
    const path = join(dir, 'file');
    // A pid that cannot be running: above the kernel's pid_max default range.
    writeFileSync(`${path}.lock`, '4194304999 deadbeef\n');
    expect(await withFileLock(path, async () => 'ran')).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never takes a lock from a live holder, however old the lock (a slow refresh keeps it)', async () => {
    const path = join(dir, 'file');
    // Another live process holds the lock, which is far older than staleMs.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${path}.lock`, `${holder.pid} holder\n`);
      const old = new Date(Date.now() - 60_000);
      await fs.utimes(`${path}.lock`, old, old);
      await expect(withFileLock(path, async () => 'ran', { staleMs: 10, timeoutMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(await fs.readFile(`${path}.lock`, 'utf8')).toBe(`${holder.pid} holder\n`);
    } finally {
      holder.kill();
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    // Its holder gone, the lock is stale and taken over.
    expect(await withFileLock(path, async () => 'ran', { staleMs: 10, timeoutMs: 2000 })).toBe('ran');
  });

  it('takes over an old lock that names no process', async () => {
    const path = join(dir, 'file');
    writeFileSync(`${path}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(`${path}.lock`, old, old);
    expect(await withFileLock(path, async () => 'ran', { staleMs: 30_000 })).toBe('ran');
  });

  it('gives up with LockTimeoutError while a live process holds the lock', async () => {
    const path = join(dir, 'file');
    writeFileSync(`${path}.lock`, `${process.pid} live\n`);
    await expect(withFileLock(path, async () => 'ran', { timeoutMs: 50 })).rejects.toBeInstanceOf(LockTimeoutError);
    // The live holder's lock is left alone.
    expect(await fs.readFile(`${path}.lock`, 'utf8')).toBe(`${process.pid} live\n`);
  });

  it('releases the lock when the work throws', async () => {
    const path = join(dir, 'file');
    await expect(withFileLock(path, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withFileLock(path, async () => 'again')).toBe('again');
  });
});
