import { describe, expect, it } from 'vitest';
import { chooseStagingDir } from '../../src/services/uploads/staging.ts';
import { UploadLocks } from '../../src/services/uploads/locks.ts';
import { statfsDiskSpace } from '../../src/services/uploads/disk.ts';

describe('chooseStagingDir', () => {
  const devs = (map: Record<string, number>) => (p: string) => {
    if (!(p in map)) throw new Error('ENOENT');
    return map[p];
  };

  it('uses the data folder when it is outside the root on the same file system', () => {
    expect(chooseStagingDir('/srv/files', '/var/lib/fm', devs({ '/srv/files': 1, '/var/lib/fm': 1 }))).toBe('/var/lib/fm/uploads');
  });

  it('uses a hidden folder in the root when the data folder is on another file system', () => {
    expect(chooseStagingDir('/srv/files', '/var/lib/fm', devs({ '/srv/files': 1, '/var/lib/fm': 2 }))).toBe('/srv/files/.fm-uploads');
  });

  it('uses the root when the data folder is inside it or cannot be examined', () => {
    expect(chooseStagingDir('/srv/files', '/srv/files/.fm', devs({ '/srv/files': 1, '/srv/files/.fm': 1 }))).toBe('/srv/files/.fm-uploads');
    expect(chooseStagingDir('/srv/files', '/srv/files', devs({ '/srv/files': 1 }))).toBe('/srv/files/.fm-uploads');
    expect(chooseStagingDir('/srv/files', '/gone', devs({ '/srv/files': 1 }))).toBe('/srv/files/.fm-uploads');
  });

  it('does not mistake a sibling with a common prefix for the inside of the root', () => {
    expect(chooseStagingDir('/srv/files', '/srv/files-data', devs({ '/srv/files': 1, '/srv/files-data': 1 }))).toBe('/srv/files-data/uploads');
  });
});

describe('UploadLocks', () => {
  it('refuses a second holder until the first releases', () => {
    const locks = new UploadLocks();
    const release = locks.tryAcquire('a')!;
    expect(locks.tryAcquire('a')).toBeUndefined();
    expect(locks.tryAcquire('b')).toBeDefined();
    release();
    expect(locks.tryAcquire('a')).toBeDefined();
  });

  it('takeOver aborts the holder and waits for it to let go', async () => {
    const locks = new UploadLocks();
    const events: string[] = [];
    let release: () => void = () => {};
    release = locks.tryAcquire('a', () => {
      events.push('aborted');
      setTimeout(() => {
        events.push('released');
        release();
      }, 10);
    })!;
    const mine = await locks.takeOver('a');
    events.push('taken');
    expect(events).toEqual(['aborted', 'released', 'taken']);
    expect(locks.isHeld('a')).toBe(true);
    // A stale release from the old holder must not free the new holder's lock.
    release();
    expect(locks.isHeld('a')).toBe(true);
    mine();
    expect(locks.isHeld('a')).toBe(false);
  });
});

describe('free disk space', () => {
  it('reads the real free space from statfs', async () => {
    expect(await statfsDiskSpace.freeBytes('/')).toBeGreaterThan(0);
  });
});
