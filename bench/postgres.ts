/**
 * fm on PostgreSQL against fm on SQLite in the same run (issue 21): a small listing (one
 * authenticated request: the token check reads the memoised user and revocations) and logins
 * (bcrypt, the throttle's counters, the session), under wrk on loopback, one instance each,
 * on one throwaway cluster (test/helpers/postgres.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, have, startFm } from './lib.ts';
import type { Row } from './search.ts';
import { ensureSmallFiles, wrk } from './throughput.ts';
import { postgresBin, startCluster } from '../test/helpers/postgres.ts';

export async function benchPostgres(dataDir: string): Promise<Row[]> {
  if (!have('wrk') || !postgresBin()) return [{ workload: 'PostgreSQL vs SQLite', fm: '–', baseline: '–', ratio: '–', note: 'needs wrk and postgresql' }];
  const root = ensureSmallFiles(dataDir);
  const cluster = await startCluster();
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-lua-')), 'login.lua');
  try {
    const sqlite = await startFm(root, ['--no-index']);
    const pg = await startFm(root, ['--no-index', '--database', await cluster.createDatabase()]);
    try {
      const listing = (fm: typeof sqlite) => wrk(`${fm.url}/api/resources/fifty`, { 'X-Auth': fm.token });
      const login = (fm: typeof sqlite) => {
        fs.writeFileSync(script, `wrk.method = "POST"\nwrk.body = '{"username":"admin","password":"${fm.password}"}'\n`);
        return wrk(`${fm.url}/api/login`, {}, ['-s', script, '-c8']);
      };
      const rows: Row[] = [];
      for (const [name, run] of [
        ['listing of 50 files, wrk -c50', listing],
        ['login, wrk -c8 (bcrypt-bound)', login],
      ] as const) {
        const s = run(sqlite);
        const p = run(pg);
        rows.push({
          workload: `${name}: PostgreSQL vs SQLite (req/s, p99)`,
          fm: `PostgreSQL ${fmt(p.rps, 0)} req/s, p99 ${fmt(p.p99)} ms`,
          baseline: `SQLite ${fmt(s.rps, 0)} req/s, p99 ${fmt(s.p99)} ms`,
          ratio: `${fmt(p.rps / s.rps, 2)}× SQLite`,
          note: 'one instance each, database on the same 2 cores',
        });
      }
      return rows;
    } finally {
      await sqlite.stop();
      await pg.stop();
    }
  } finally {
    await cluster.destroy();
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
  }
}
