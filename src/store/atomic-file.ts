import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, promises as fs, readFileSync, constants as fsConstants } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Files that hold secrets (profiles, cached tokens, a saved flow) are readable by the user only and
 * never half-written: the data goes to a temporary file in the same directory, is flushed to disk,
 * and is renamed over the target, which POSIX makes atomic. A reader sees the old file or the new
 * one, never a mix, even when two processes write at once.
 */
export interface AtomicWriteOptions {
  /** File mode, default 0600. */
  mode?: number;
  /** Mode of directories created on the way, default 0700. */
  dirMode?: number;
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o600;
  const dir = dirname(path);
  await ensurePrivateDir(dir, options.dirMode ?? 0o700);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // O_EXCL: never follow a planted symlink or reuse someone else's file.
  const handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, mode);
  try {
    await handle.writeFile(data);
    // The umask may have narrowed the mode; it can never widen it, but set it exactly.
    await handle.chmod(mode);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(temp, path);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

/** Creates a directory (and its parents) with the given mode; an existing one is left as it is. */
export async function ensurePrivateDir(dir: string, mode = 0o700): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode });
}

/** Makes the rename itself durable; not every platform can open a directory, which is fine. */
async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, fsConstants.O_RDONLY);
    await handle.sync();
  } catch {
    // Windows and some file systems refuse; the rename is still atomic.
  } finally {
    await handle?.close();
  }
}

/** The file's text, or undefined when it does not exist. Other errors (EACCES, EISDIR) are thrown. */
export async function readFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A path that exists but cannot be what the caller reads: a directory, a FIFO, a device, or too large. */
export class NotAReadableFileError extends Error {
  override readonly name = 'NotAReadableFileError';
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${path} is ${what}`);
  }
}

/**
 * Like readFileIfExists, for a file that must be a regular one of at most `maxBytes`: opened without
 * blocking (a FIFO planted there never hangs the run), checked with fstat before anything is read.
 * Synchronous on purpose: these files are small and local, and `token` and `mcp` with a cached login
 * read one in a few tens of milliseconds, where each trip through the thread pool (and loading
 * fs/promises) would show.
 */
export async function readRegularFileIfExists(path: string, maxBytes: number): Promise<string | undefined> {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') throw new NotAReadableFileError(path, 'a directory, not a file');
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new NotAReadableFileError(path, 'a directory, not a file');
    if (stat.isFIFO()) throw new NotAReadableFileError(path, 'a FIFO (named pipe), not a file');
    if (!stat.isFile()) throw new NotAReadableFileError(path, 'not a regular file');
    if (stat.size > maxBytes) throw new NotAReadableFileError(path, `${stat.size} bytes, more than the ${maxBytes} such a file can hold`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

export interface LockOptions {
  /** How long to keep trying before giving up, default 10 s. */
  timeoutMs?: number;
  /** A lock that names no process (empty or garbled) and is older than this is taken over, default 30 s. */
  staleMs?: number;
  /** Called once, when the lock is first found held: the holder's pid when the lock names one. */
  onWait?: (holderPid: number | undefined) => void;
}

export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
  constructor(readonly lockPath: string) {
    super(`another oauthctl is still holding ${lockPath}`);
  }
}

/**
 * Runs `fn` while holding `<path>.lock`, a file created with O_EXCL so that only one process holds it.
 * Used around read-modify-write (a profile edit, a token refresh). A lock is taken over only when its
 * owner has exited (its pid is recorded in it), never from a live holder however long it takes: a slow
 * refresh keeps its lock, so the same refresh token is never sent twice. A lock that names no process
 * is taken over once older than `staleMs`.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  await ensurePrivateDir(dirname(path));
  const deadline = Date.now() + timeoutMs;
  const owner = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  let delay = 2;
  let told = false;
  for (;;) {
    try {
      const handle = await fs.open(lockPath, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
      await handle.writeFile(owner);
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const stale = await staleLockContent(lockPath, staleMs);
    if (stale !== undefined) {
      await removeIfUnchanged(lockPath, stale);
      continue;
    }
    if (!told && options.onWait) {
      told = true;
      options.onWait(await lockHolder(lockPath));
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(lockPath);
    // Jitter keeps waiting processes from retrying in lockstep.
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 20);
  }
  try {
    return await fn();
  } finally {
    // Only remove the lock if it is still ours (a stale-lock takeover may have replaced it).
    const current = await readFileIfExists(lockPath);
    if (current === owner) await fs.rm(lockPath, { force: true });
  }
}

/** The content of the lock when it is stale (its owner exited, or it names none and is old), else undefined. */
async function staleLockContent(lockPath: string, staleMs: number): Promise<string | undefined> {
  let text: string;
  let mtimeMs: number;
  try {
    text = await fs.readFile(lockPath, 'utf8');
    mtimeMs = (await fs.stat(lockPath)).mtimeMs;
  } catch {
    // Gone already: not stale, just retry.
    return undefined;
  }
  const pid = Number(text.split(' ')[0]);
  // An empty lock is one being written right now; give its owner time, unless it has stayed so.
  if (text === '' || !Number.isSafeInteger(pid) || pid <= 0) return Date.now() - mtimeMs > staleMs ? text : undefined;
  return processExists(pid) ? undefined : text;
}

/** The pid a lock names, when it names one. */
async function lockHolder(lockPath: string): Promise<number | undefined> {
  const pid = Number((await readFileIfExists(lockPath).catch(() => undefined))?.split(' ')[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock unless another process took it over in the meantime: the lock is moved aside
 * atomically, and if what was moved is not the stale lock seen before, it is put back with link(),
 * which fails rather than replace a lock someone created since.
 */
async function removeIfUnchanged(lockPath: string, staleContent: string): Promise<void> {
  const aside = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return;
  }
  const moved = await readFileIfExists(aside);
  if (moved !== staleContent) await fs.link(aside, lockPath).catch(() => undefined);
  await fs.rm(aside, { force: true });
}
