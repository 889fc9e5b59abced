/** Upload maths and planning (spec §4 "Uploads", "Progress", §5 "Chunk size", §9 constants). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHUNK_SIZE, formatChunkSize, parseChunkSize } from '../../web/lib/chunkSize.ts';
import { retryDelays } from '../../web/lib/retry.ts';
import { etaSeconds, formatEta, itemPercent, MB, overallSpeed, progressPercent, sampleSpeed, startSpeed } from '../../web/lib/uploadProgress.ts';
import {
  clashRenames,
  MAX_CONCURRENT_UPLOADS,
  planUpload,
  renamedPath,
  renamePicked,
  renameTop,
  topLevelNames,
  uniqueName,
  uploadType,
} from '../../web/lib/uploads.ts';
import { measure } from '../../web/actions/uploadTypes.ts';

describe('chunk size field', () => {
  it('parses a number with an optional decimal and unit, in multiples of 1024', () => {
    expect(parseChunkSize('10MB')).toBe(10 * 1024 * 1024);
    expect(parseChunkSize('10mb')).toBe(10 * 1024 * 1024);
    expect(parseChunkSize('1.5M')).toBe(1.5 * 1024 * 1024);
    expect(parseChunkSize('512k')).toBe(512 * 1024);
    expect(parseChunkSize('512 KB')).toBe(512 * 1024);
    expect(parseChunkSize('2G')).toBe(2 * 1024 ** 3);
    expect(parseChunkSize('1tb')).toBe(1024 ** 4);
    expect(parseChunkSize('4096')).toBe(4096);
    expect(parseChunkSize('4096b')).toBe(4096);
  });

  it('falls back to 1 MiB for anything else', () => {
    for (const bad of ['', 'abc', '10 XB', '-5MB', '1,5MB', '.5MB', '0', '0KB', 'MB']) expect([bad, parseChunkSize(bad)]).toEqual([bad, DEFAULT_CHUNK_SIZE]);
    expect(DEFAULT_CHUNK_SIZE).toBe(1048576);
  });

  it('formats bytes in the largest unit that reads back exactly', () => {
    expect(formatChunkSize(10 * 1024 * 1024)).toBe('10MB');
    expect(formatChunkSize(1.5 * 1024 * 1024)).toBe('1.5MB');
    expect(formatChunkSize(1024)).toBe('1KB');
    expect(formatChunkSize(1000)).toBe('1000B');
    expect(formatChunkSize(1024 ** 4)).toBe('1TB');
    expect(formatChunkSize(0)).toBe('0B');
    for (const n of [1, 1023, 1025, 10_000_000, 5 * 1024 ** 3 + 7]) expect(parseChunkSize(formatChunkSize(n))).toBe(n);
  });
});

describe('retry delays', () => {
  it('start at 0, then 1000 ms, doubling up to 20000 ms; one per retry', () => {
    expect(retryDelays(1)).toEqual([0]);
    expect(retryDelays(3)).toEqual([0, 1000, 2000]);
    expect(retryDelays(8)).toEqual([0, 1000, 2000, 4000, 8000, 16000, 20000, 20000]);
  });

  it('are empty when the count is below 1', () => {
    expect(retryDelays(0)).toEqual([]);
    expect(retryDelays(-2)).toEqual([]);
    expect(retryDelays(Number.NaN)).toEqual([]);
  });
});

describe('upload progress', () => {
  it('sums progress over sizes, rounded up to a percentage', () => {
    expect(progressPercent([0, 0], [100, 100])).toBe(0);
    expect(progressPercent([1, 0], [100, 100])).toBe(1);
    expect(progressPercent([100, 99], [100, 100])).toBe(100);
    expect(progressPercent([50, 25], [100, 100])).toBe(38);
    expect(progressPercent([], [])).toBe(0);
  });

  it('counts a folder as 100 in the panel', () => {
    expect(itemPercent(0, 0, true)).toBe(100);
    expect(itemPercent(1, 3, false)).toBe(34);
    expect(itemPercent(0, 0, false)).toBe(100);
  });

  it('samples speed every second over the last 5 samples, smoothed 0.2 new to 0.8 old', () => {
    let s = startSpeed(0, 0);
    s = sampleSpeed(s, 10 * MB, 1000); // 10 MB/s; mean 10; 0.8*0 + 0.2*10
    expect(s.speed).toBeCloseTo(2);
    s = sampleSpeed(s, 10 * MB, 2000); // 0 MB/s; mean 5; 0.8*2 + 0.2*5
    expect(s.speed).toBeCloseTo(2.6);
    for (let i = 3; i <= 8; i++) s = sampleSpeed(s, 10 * MB + (i - 2) * 4 * MB, i * 1000);
    expect(s.recent).toEqual([4, 4, 4, 4, 4]);
    // A sample at the same instant changes nothing.
    expect(sampleSpeed(s, 99 * MB, 8000)).toBe(s);
  });

  it('averages the active uploads for the overall speed and derives the ETA', () => {
    expect(overallSpeed([])).toBe(0);
    expect(overallSpeed([1, 3])).toBe(2);
    expect(etaSeconds(10 * MB, 2)).toBe(5);
    expect(etaSeconds(10 * MB, 0)).toBe(Infinity);
    expect(formatEta(Infinity)).toBe('--:--:--');
    expect(formatEta(Number.NaN)).toBe('--:--:--');
    expect(formatEta(3725)).toBe('01:02:05');
    expect(formatEta(0.4)).toBe('00:00:00');
  });
});

describe('upload planning', () => {
  it('runs at most 5 uploads at once', () => {
    expect(MAX_CONCURRENT_UPLOADS).toBe(5);
  });

  it('types jobs by MIME prefix', () => {
    expect(['video/mp4', 'audio/ogg', 'image/png', 'application/pdf', 'text/plain', 'application/zip', ''].map(uploadType)).toEqual([
      'video',
      'audio',
      'image',
      'pdf',
      'text',
      'blob',
      'blob',
    ]);
  });

  it('creates every folder of a folder upload, parents first, then the files', () => {
    const plan = planUpload(
      '/docs',
      [
        { file: 'b', relativePath: 'tree/sub/b.txt' },
        { file: 'a', relativePath: 'tree/a.txt' },
        { file: 'x', relativePath: 'x.txt' },
      ],
      ['tree/empty'],
    );
    expect(plan.dirs).toEqual(['/docs/tree', '/docs/tree/empty', '/docs/tree/sub']);
    expect(plan.files).toEqual([
      { file: 'b', path: '/docs/tree/sub/b.txt' },
      { file: 'a', path: '/docs/tree/a.txt' },
      { file: 'x', path: '/docs/x.txt' },
    ]);
    expect(planUpload('/', [{ file: 1, relativePath: '../../etc/passwd' }]).files).toEqual([{ file: 1, path: '/etc/passwd' }]);
  });

  it('checks only top-level names for conflicts and renames them like the server', () => {
    expect(topLevelNames([{ relativePath: 'tree/a.txt' }, { relativePath: 'tree/sub/b.txt' }, { relativePath: 'c.txt' }])).toEqual(['tree', 'c.txt']);
    const taken = new Set(['a.txt', 'a (1).txt', 'd', 'a.tar.gz']);
    expect(uniqueName('a.txt', taken, false)).toBe('a (2).txt');
    expect(uniqueName('a.tar.gz', taken, false)).toBe('a.tar (1).gz');
    expect(uniqueName('d', taken, true)).toBe('d (1)');
    expect(uniqueName('new.txt', taken, false)).toBe('new.txt');
    expect(uniqueName('.env', new Set(['.env']), false)).toBe('.env (1)');
    expect(renameTop('tree/sub/b.txt', 'tree', 'tree (1)')).toBe('tree (1)/sub/b.txt');
  });

  it('on Continue gives each clashing top-level entry a free name beside the folder and the batch, folders without extension split', () => {
    const picked = [
      { file: 1, relativePath: 'tree.v1/a.txt' },
      { file: 2, relativePath: 'a.txt' },
      { file: 3, relativePath: 'b.txt' },
    ];
    const used = new Set(['tree.v1', 'a.txt', 'a (1).txt', 'b.txt']);
    const rename = clashRenames(['tree.v1', 'a.txt'], used, picked, []);
    expect([...rename]).toEqual([
      ['tree.v1', 'tree.v1 (1)'],
      ['a.txt', 'a (2).txt'],
    ]);
    expect(clashRenames(['e.d'], new Set(['e.d']), [], ['e.d/x']).get('e.d')).toBe('e.d (1)');
    expect(renamePicked(picked, rename).map((p) => p.relativePath)).toEqual(['tree.v1 (1)/a.txt', 'a (2).txt', 'b.txt']);
    expect(renamedPath('c/d', rename)).toBe('c/d');
  });
});

describe('upload panel figures', () => {
  const job = (id: number, size: number, loaded: number, isDir = false) => ({ id, name: `j${id}`, isDir, type: 'blob' as const, size, loaded });

  it('counts active and queued jobs, weighs the percentage by bytes over every job, and says when paused', () => {
    const done = job(1, 100, 100);
    const half = { ...job(2, 300, 150), speed: { lastBytes: 0, lastTime: 0, recent: [], speed: 2 } };
    const folder = job(3, 0, 0, true);
    const s = measure([half, folder], 4, [done, half, folder], true);
    expect(s.count).toBe(6);
    expect(s.percent).toBe(63);
    expect(s.items.map((i) => [i.id, i.progress])).toEqual([
      [2, 50],
      [3, 100],
    ]);
    expect(s.speed).toBe(2);
    expect(s.paused).toBe(true);
    expect(measure([], 0, [], false)).toMatchObject({ count: 0, items: [], paused: false });
  });
});
