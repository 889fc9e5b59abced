/**
 * bin/fm.js turns on Node's compile cache (Node >= 22.1; Node 20 has none) in the user's cache
 * folder: the compiled code of fm's modules is kept between runs, and a damaged entry is
 * rejected by Node, never run.
 */
import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name))
    : [];

describe.skipIf(!('enableCompileCache' in module))('the compile cache', () => {
  it('is written under $XDG_CACHE_HOME/fm and a damaged one is rejected', async () => {
    const cacheHome = tempDir();
    const env = { XDG_CACHE_HOME: cacheHome };
    const first = await runFm(['version'], { env });
    expect([first.code, first.stdout]).toEqual([0, expect.stringMatching(/^fm v\d/)]);
    const entries = filesUnder(path.join(cacheHome, 'fm', 'node-compile-cache'));
    expect(entries.length).toBeGreaterThan(0);

    for (const f of entries) fs.writeFileSync(f, Buffer.alloc(fs.statSync(f).size, 0x5a));
    const damaged = await runFm(['version'], { env });
    expect([damaged.code, damaged.stdout, damaged.stderr]).toEqual([0, first.stdout, '']);
    fs.rmSync(cacheHome, { recursive: true, force: true });
  });
});
