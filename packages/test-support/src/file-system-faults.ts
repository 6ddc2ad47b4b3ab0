import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

// File systems that fail under a running store, for the R69 fault tests and
// the chaos matrix: a small tmpfs (filled up; remounted read-only while
// nothing holds a file open for writing) and an ext4 image on a loop device
// mounted errors=remount-ro, which the kernel turns read-only under a live
// process once an error is raised. Everything here needs root (or a
// container that allows mounts); canMount() says whether this process may.

/** A hang guard for each mount, umount, losetup or mkfs: they never take long. */
const COMMAND_DEADLINE_MS = 60_000;
/** The ext4 image's size when none is asked for: room for a test's database and its WAL. */
const DEFAULT_EXT4_BYTES = 16 * 1024 * 1024;

/** Runs a command to completion; returns its stdout, or throws with its stderr. */
function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, {
      stdio: 'pipe',
      encoding: 'utf8',
      timeout: COMMAND_DEADLINE_MS,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr || (error as Error).message}`);
  }
}

/** Whether this process may mount file systems: it mounts and unmounts a tiny tmpfs. */
export function canMount(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'file-system-faults-probe-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    run('umount', [dir]);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Unmounts `dir`; lazily if a process still holds a file there (detached at
 * once, freed when it closes), so no mount outlives its user.
 */
export function unmount(dir: string): void {
  try {
    run('umount', [dir]);
  } catch {
    run('umount', ['-l', dir]);
  }
}

export interface TmpfsOptions {
  /** The mount's `size=`: bytes, or with a suffix (`1m`, `8m`). */
  readonly size: number | string;
  /** An empty directory to mount on; by default a new temporary one, removed again by `remove()`. */
  readonly dir?: string;
  /** The temporary directory's name prefix. */
  readonly prefix?: string;
  /** The mount's source, as /proc/mounts shows it (default `tmpfs`). */
  readonly source?: string;
}

/** A tmpfs of its own: a disk that fills up at a size of our choosing. */
export interface MountedTmpfs {
  readonly dir: string;
  /**
   * `mount -o remount,<mode>`. Linux refuses `ro` (EBUSY) while a process
   * holds a file there open for writing; the error carries mount's message.
   */
  remount(mode: 'ro' | 'rw'): void;
  /** Unmounts it (lazily if busy) and removes a directory it made; safe to call twice. */
  remove(): void;
}

/** Mounts a tmpfs of `size`; call `remove()` after. */
export function mountTmpfs(options: TmpfsOptions): MountedTmpfs {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), options.prefix ?? 'tmpfs-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${options.size}`, options.source ?? 'tmpfs', dir]);
  } catch (error) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let mounted = true;
  return {
    dir,
    remount: (mode) => {
      run('mount', ['-o', `remount,${mode}`, dir]);
    },
    remove() {
      if (mounted) {
        mounted = false;
        unmount(dir);
      }
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Fills the file system `dir` is on with one file (`dir/<name>`), to the
 * last byte: big writes, then ever smaller ones, each size until ENOSPC.
 * Returns the file (deleting it frees the space) and how much it holds.
 */
export function fillFileSystem(dir: string, name = 'filler'): { path: string; bytes: number } {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  let bytes = 0;
  try {
    for (const size of [1 << 20, 64 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      // Bounded: a file system never holds more than its size, so ENOSPC comes first.
      for (let i = 0; i < 1 << 20; i += 1) {
        try {
          bytes += writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return { path, bytes };
}

export interface Ext4Options {
  /** The image's size (default 16 MiB). */
  readonly sizeBytes?: number;
  /** The temporary directory's name prefix (it holds the image and the mount point). */
  readonly prefix?: string;
}

/** What `e2fsck -f -y` said: 0 clean, 1 errors corrected, 2 and up see e2fsck(8). */
export interface FsckResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * An ext4 image on a loop device, mounted `errors=remount-ro`: on an error
 * the kernel makes it read-only under every process using it, and it is
 * writable again only once unmounted, checked and mounted anew.
 */
export interface Ext4FileSystem {
  /** The mount point. */
  readonly dir: string;
  /** The loop device, `/dev/loopN`. */
  readonly device: string;
  /**
   * Raises a file system error (`/sys/fs/ext4/<device>/trigger_fs_error`,
   * `message` in the kernel log): the kernel remounts it read-only at once.
   */
  raiseError(message: string): void;
  /** `writable` if a new file can be written in it now, else the errno it fails with (`EROFS`). */
  writable(): string;
  /**
   * Unmounts it (throws if a process still holds a file there: stop it
   * first) and runs `e2fsck -f -y` on the device, which corrects what the
   * error left (the aborted journal, the counts).
   */
  unmountAndCheck(): FsckResult;
  /** Mounts it again, `errors=remount-ro`. */
  mount(): void;
  /**
   * Unmounts it (lazily if busy), detaches the loop device and removes the
   * image and its directory; safe to call twice.
   */
  remove(): void;
}

/**
 * Makes an ext4 image, attaches it to a free loop device and mounts it
 * `errors=remount-ro`; call `remove()` after. A string says why it cannot be
 * made here (e2fsprogs or util-linux missing, no loop device free).
 */
export function mountExt4(options: Ext4Options = {}): Ext4FileSystem | string {
  for (const tool of ['mkfs.ext4', 'e2fsck', 'losetup']) {
    if (spawnSync(tool, ['-V']).error !== undefined) return `${tool} is not installed`;
  }
  const home = mkdtempSync(join(tmpdir(), options.prefix ?? 'ext4-'));
  const image = join(home, 'fs.img');
  const dir = join(home, 'mnt');
  let device: string | undefined;
  let mounted = false;
  const remove = () => {
    try {
      if (mounted) {
        mounted = false;
        unmount(dir);
      }
      if (device !== undefined) {
        const attached = device;
        device = undefined;
        run('losetup', ['-d', attached]);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
  const mount = () => {
    run('mount', ['-o', 'errors=remount-ro', device ?? '', dir]);
    mounted = true;
  };
  try {
    mkdirSync(dir);
    writeFileSync(image, '');
    truncateSync(image, options.sizeBytes ?? DEFAULT_EXT4_BYTES);
    run('mkfs.ext4', ['-q', '-F', image]);
    try {
      device = run('losetup', ['--find', '--show', image]).trim();
    } catch (error) {
      remove();
      return `no loop device: ${(error as Error).message}`;
    }
    mount();
  } catch (error) {
    remove();
    throw error;
  }
  const attached = device;
  return {
    dir,
    device: attached,
    raiseError: (message) =>
      writeFileSync(`/sys/fs/ext4/${basename(attached)}/trigger_fs_error`, message),
    writable() {
      try {
        writeFileSync(join(dir, 'probe'), 'x');
        return 'writable';
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? String(error);
      }
    },
    unmountAndCheck() {
      run('umount', [dir]);
      mounted = false;
      const fsck = spawnSync('e2fsck', ['-f', '-y', attached], {
        encoding: 'utf8',
        timeout: COMMAND_DEADLINE_MS,
      });
      return { status: fsck.status, stdout: fsck.stdout ?? '', stderr: fsck.stderr ?? '' };
    },
    mount,
    remove,
  };
}
