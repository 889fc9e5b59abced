/**
 * Files made outside fm while it starts — before it listens, while the index scans, right after
 * the index says it is ready — are all found by the indexed search within 2 s. (The watcher
 * used to subscribe only after the scan: a file made in a folder the scan had already read was
 * missing until the next restart.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';

const FOLDERS = 60;
const FILES_PER_FOLDER = 400;

function seed(root: string): string[] {
  const folders: string[] = [];
  for (let f = 0; f < FOLDERS; f++) {
    const dir = path.join(root, `group-${f % 6}`, `folder-${f}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < FILES_PER_FOLDER; i++) fs.writeFileSync(path.join(dir, `seed-${i}.txt`), '');
    folders.push(dir);
  }
  return folders;
}

async function found(admin: Client): Promise<Set<string>> {
  const res = await admin.fetch(`/api/search/?query=${encodeURIComponent('late-')}`);
  if (res.status !== 200) return new Set();
  const lines = (await res.text()).split('\n').filter((l) => l.trim());
  return new Set(lines.map((l) => path.basename((JSON.parse(l) as { path: string }).path)));
}

describe('search index during start-up', () => {
  let server: FmServer | undefined;
  afterAll(async () => server?.stop());

  it('finds every file made while fm starts and indexes, within 2 s', async () => {
    const home = tempDir();
    const root = path.join(home, 'root');
    const folders = seed(root);
    const made: string[] = [];
    let creating = true;
    let n = 0;
    // Files are made at random moments in random folders (already scanned or not) until the
    // index has been ready for a moment.
    const maker = (async () => {
      while (creating) {
        const name = `late-${n++}.txt`;
        fs.writeFileSync(path.join(folders[Math.floor(Math.random() * folders.length)], name), 'x');
        made.push(name);
        await new Promise((r) => setTimeout(r, Math.random() * 15));
      }
    })();
    server = await startFm({ home, root });
    const admin = await adminClient(server);
    let ready = false;
    for (let i = 0; i < 600 && !ready; i++) {
      ready = ((await admin.json<{ ready: boolean }>('/api/search-status')) as { ready: boolean }).ready;
      if (!ready) await new Promise((r) => setTimeout(r, 25));
    }
    expect(ready).toBe(true);
    const afterReady = made.length;
    while (made.length < afterReady + 10) await new Promise((r) => setTimeout(r, 10));
    creating = false;
    await maker;

    const deadline = Date.now() + 2000;
    let missing = made;
    while (missing.length > 0 && Date.now() < deadline) {
      const seen = await found(admin);
      missing = made.filter((m) => !seen.has(m));
      if (missing.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(made.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  }, 60_000);
});
