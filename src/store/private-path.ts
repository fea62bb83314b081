import { lstatSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * ssh's rule for its own files (ssh(1) FILES, sshd's StrictModes): a file that holds or steers
 * secrets (a cached login, a registration) is trusted only when it and every directory above it are
 * owned by the user (or root) and writable by no one else. Another user who created
 * `$XDG_STATE_HOME/oauthctl/tokens` first (a shared /tmp) could plant an entry whose token endpoint is
 * theirs, or swap one in later. A root-owned sticky directory (/tmp itself) lets no one rename what
 * is not theirs, and is allowed. A path that does not exist yet is fine: it is created private.
 */
export async function checkPrivatePath(path: string, what: string): Promise<void> {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return;
  let current = resolve(path);
  let label = what;
  for (;;) {
    await checkPrivateEntry(current, label);
    const parent = dirname(current);
    if (parent === current) return;
    current = parent;
    label = 'the directory';
  }
}

/** The same check of one path alone (a file in a directory already checked). */
export async function checkPrivateEntry(path: string, what: string): Promise<void> {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return;
  // Synchronous, as the reads these checks guard are (atomic-file.ts): a few stat calls, no thread-pool trips.
  const stat = statOrUndefined(lstatSync, path);
  if (stat !== undefined) refuseUnlessPrivate(path, what, stat.isSymbolicLink() ? followed(path, stat) : stat, process.getuid());
}

/** A symbolic link is as safe as its own owner and the place it points to. */
function followed(path: string, link: Stats): Stats {
  const target = statOrUndefined(statSync, path);
  if (target === undefined || (link.uid !== 0 && link.uid !== process.getuid?.())) return link;
  return target;
}

/** A path that cannot be stat'ed (absent, unreadable) is not judged here: its reader says what is wrong. */
function statOrUndefined(stat: (path: string) => Stats, path: string): Stats | undefined {
  try {
    return stat(path);
  } catch {
    return undefined;
  }
}

function refuseUnlessPrivate(path: string, what: string, stat: Stats, uid: number): void {
  const quoted = JSON.stringify(path);
  if (stat.uid !== uid && stat.uid !== 0) {
    throw new UsageError(
      `${what} ${path} is owned by uid ${stat.uid}, not by you (uid ${uid}), so it cannot be trusted`,
      `if you did not make it, remove it (rm -r ${quoted}) and log in again; if you did, chown it to yourself`,
    );
  }
  const sticky = (stat.mode & 0o1000) !== 0 && stat.isDirectory() && stat.uid === 0;
  if ((stat.mode & 0o022) !== 0 && !sticky && !stat.isSymbolicLink()) {
    throw new UsageError(
      `${what} ${path} is writable by others (mode ${(stat.mode & 0o777).toString(8)}), so it cannot be trusted`,
      `make it private: chmod ${stat.isDirectory() ? 700 : 600} ${quoted}`,
    );
  }
}
