/** A listing's JSON reused only for the very same inputs (services/files/listing-memo.ts), within its memory bound. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FileInfoDto } from '../../src/api/files.ts';
import type { FolderScan } from '../../src/services/files/listing.ts';
import { type ListingInputs, limitListingMemo, renderedListing } from '../../src/services/files/listing-memo.ts';

function inputs(n = 3): ListingInputs {
  const scan: FolderScan = {
    virtual: '/docs',
    names: Array.from({ length: n }, (_, i) => `f${i}.txt`),
    size: Float64Array.from({ length: n }, (_, i) => i * 10),
    mtime: Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + i),
    mode: new Float64Array(n).fill(0o644),
    kind: new Uint8Array(n),
    present: new Uint8Array(n).fill(1),
    numDirs: 0,
    numFiles: n,
  };
  const base: FileInfoDto = {
    path: '/docs',
    name: 'docs',
    size: 4096,
    extension: '',
    modified: '2024-01-01T00:00:00.000Z',
    mode: 2147484141,
    isDir: true,
    isSymlink: false,
    type: '',
  };
  return { scan, base, sorting: { by: 'name', asc: true } };
}

/** Renders a distinct buffer each call, counting the calls. */
function renderer(): { render: () => Buffer; calls: () => number } {
  let calls = 0;
  return { render: () => Buffer.from(`rendering ${++calls}`), calls: () => calls };
}

afterEach(() => limitListingMemo());

describe('the rendered listing memo', () => {
  it('answers the same inputs with the kept rendering, made once', () => {
    const r = renderer();
    const first = renderedListing('/srv/docs', inputs(), r.render);
    expect(renderedListing('/srv/docs', inputs(), r.render)).toBe(first);
    expect(r.calls()).toBe(1);
  });

  it('renders anew when any one input differs', () => {
    const changes: Array<[string, (i: ListingInputs) => void]> = [
      ['a name', (i) => (i.scan.names[1] = 'other.txt')],
      ['one more entry', (i) => (i.scan.names = [...i.scan.names, 'f3.txt'])],
      ['a size', (i) => (i.scan.size[2] = 21)],
      ['a time', (i) => (i.scan.mtime[0] += 1)],
      ['a mode', (i) => (i.scan.mode[0] = 0o600)],
      ['a kind', (i) => (i.scan.kind[0] = 2)],
      ['an entry gone', (i) => (i.scan.present[1] = 0)],
      ['the virtual path (another scope)', (i) => (i.scan.virtual = '/')],
      ['the counts', (i) => (i.scan.numDirs = 1)],
      ["the folder's own time", (i) => (i.base.modified = '2024-01-01T00:00:00.001Z')],
      ["the folder's own path", (i) => (i.base.path = '/')],
      ['the sort direction', (i) => (i.sorting = { by: 'name', asc: false })],
      ['the sort field', (i) => (i.sorting = { by: 'size', asc: true })],
      ['the offset', (i) => (i.offset = 1)],
      ['the limit', (i) => (i.limit = 2)],
    ];
    for (const [what, change] of changes) {
      limitListingMemo();
      const r = renderer();
      const first = renderedListing('/srv/docs', inputs(), r.render);
      const changed = inputs();
      change(changed);
      expect(renderedListing('/srv/docs', changed, r.render), what).not.toBe(first);
      expect(r.calls(), what).toBe(2);
      // The first rendering is still there for its own inputs.
      expect(renderedListing('/srv/docs', inputs(), r.render), what).toBe(first);
    }
  });

  it('keeps its own copy of the inputs: a caller reusing its arrays afterwards changes nothing', () => {
    const r = renderer();
    const mine = inputs();
    const first = renderedListing('/srv/docs', mine, r.render);
    mine.scan.size[0] = 999;
    expect(renderedListing('/srv/docs', mine, r.render)).not.toBe(first);
    expect(renderedListing('/srv/docs', inputs(), r.render)).toBe(first);
  });

  it('forgets the least recently used folders beyond its memory bound', () => {
    limitListingMemo(4096);
    const r = renderer();
    const a = renderedListing('/srv/a', inputs(), r.render);
    for (let i = 0; i < 20; i++) renderedListing(`/srv/f${i}`, inputs(), r.render);
    expect(renderedListing('/srv/a', inputs(), r.render)).not.toBe(a);
  });
});
