import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canMount, fillFileSystem, mountExt4, mountTmpfs } from './file-system-faults.js';

// Failure bounds only: mkfs, mount and e2fsck on a small image never take long.
const TEST_TIMEOUT = 120_000;

/** Undone after each test, last first. */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The /proc/mounts line of the file system mounted on `dir`, if one is. */
function mountOf(dir: string): { source: string; type: string; options: string[] } | undefined {
  const line = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .find((fields) => fields[1] === dir);
  if (line === undefined) return undefined;
  return { source: line[0] ?? '', type: line[2] ?? '', options: (line[3] ?? '').split(',') };
}

/** `writable`, or the errno code writing a new file in `dir` fails with. */
function writeProbe(dir: string): string {
  try {
    writeFileSync(join(dir, 'probe'), 'x');
    return 'writable';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

describe.skipIf(!canMount())('file system faults', { timeout: TEST_TIMEOUT }, () => {
  it('mounts a tmpfs of the size asked, fills it to the last byte, remounts it read-only and back, and removes it', () => {
    const tmpfs = mountTmpfs({ size: '1m', prefix: 'fs-faults-test-', source: 'fs-faults-test' });
    cleanups.push(() => tmpfs.remove());
    expect(mountOf(tmpfs.dir)).toMatchObject({ source: 'fs-faults-test', type: 'tmpfs' });

    const filler = fillFileSystem(tmpfs.dir);
    expect(filler.path).toBe(join(tmpfs.dir, 'filler'));
    expect(filler.bytes).toBeGreaterThan(512 * 1024);
    expect(filler.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(writeProbe(tmpfs.dir)).toBe('ENOSPC');
    rmSync(filler.path);
    expect(writeProbe(tmpfs.dir)).toBe('writable');

    tmpfs.remount('ro');
    expect(mountOf(tmpfs.dir)?.options).toContain('ro');
    expect(writeProbe(tmpfs.dir)).toBe('EROFS');
    tmpfs.remount('rw');
    expect(writeProbe(tmpfs.dir)).toBe('writable');

    tmpfs.remove();
    tmpfs.remove();
    expect(mountOf(tmpfs.dir)).toBeUndefined();
    expect(existsSync(tmpfs.dir)).toBe(false);
  });

  it('on a directory of the caller: removal unmounts it (lazily while a file there is held open) and leaves the directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fs-faults-test-own-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const tmpfs = mountTmpfs({ size: 65536, dir });
    cleanups.push(() => tmpfs.remove());
    writeFileSync(join(dir, 'held'), 'x');
    // Another process keeps a file there open: umount answers EBUSY, so it is detached lazily.
    const script = 'exec 3<"$1"; echo held; read line';
    const holder = spawn('sh', ['-c', script, 'sh', join(dir, 'held')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    cleanups.push(() => {
      if (holder.exitCode === null) holder.kill('SIGKILL');
    });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    // A file open for reading does not keep it writable; only one open for writing would.
    tmpfs.remount('ro');
    expect(writeProbe(dir)).toBe('EROFS');
    tmpfs.remount('rw');

    tmpfs.remove();
    expect(mountOf(dir)).toBeUndefined();
    expect(existsSync(dir)).toBe(true);
    holder.stdin.end();
  });

  it('an ext4 image on a loop device goes read-only when an error is raised; after e2fsck and a new mount it is writable and keeps its files', async ({
    skip,
  }) => {
    const ext4 = mountExt4({ prefix: 'fs-faults-test-ext4-' });
    if (typeof ext4 === 'string') return skip(ext4);
    cleanups.push(() => ext4.remove());
    expect(ext4.device).toMatch(/^\/dev\/loop\d+$/);
    expect(mountOf(ext4.dir)).toMatchObject({ source: ext4.device, type: 'ext4' });
    expect(mountOf(ext4.dir)?.options).toContain('errors=remount-ro');
    expect(ext4.writable()).toBe('writable');
    // Synced: what sat in the page cache only is gone with the error.
    const kept = openSync(join(ext4.dir, 'kept'), 'w');
    writeSync(kept, 'kept');
    fsyncSync(kept);
    closeSync(kept);

    ext4.raiseError('file-system-faults test');
    expect(ext4.writable()).toBe('EROFS');
    // Read-only for good (newer kernels show it as `emergency_ro`): a remount cannot undo it.
    const remount = spawnSync('mount', ['-o', 'remount,rw', ext4.dir], { encoding: 'utf8' });
    expect(remount.status).not.toBe(0);
    expect(ext4.writable()).toBe('EROFS');
    const fsck = ext4.unmountAndCheck();
    // 1: e2fsck corrected what the error left (the aborted journal, the counts).
    expect(fsck.status, fsck.stdout).toBeLessThanOrEqual(1);
    expect(mountOf(ext4.dir)).toBeUndefined();

    ext4.mount();
    expect(ext4.writable()).toBe('writable');
    expect(readFileSync(join(ext4.dir, 'kept'), 'utf8')).toBe('kept');
    const clean = ext4.unmountAndCheck();
    expect(clean.status, clean.stdout).toBe(0);
    ext4.mount();

    const { dir, device } = ext4;
    ext4.remove();
    ext4.remove();
    expect(mountOf(dir)).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    // Detached: the device no longer backs our image (another user may take it again).
    const backing = `/sys/block/${device.replace('/dev/', '')}/loop/backing_file`;
    expect(existsSync(backing) ? readFileSync(backing, 'utf8') : '').not.toContain(dirname(dir));
  });
});
