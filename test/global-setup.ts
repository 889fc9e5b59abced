/**
 * Vitest global setup: starts the run's PostgreSQL cluster when FM_TEST_DATABASE=postgres, and rebuilds dist/ (node config/build.mjs) before any test runs when it is
 * missing or older than a source. The browser tests and the in-process server serve dist/web,
 * and the subprocess tests run dist/server through bin/fm.js: none may run on stale code.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PROJECT_ROOT } from './helpers/server.ts';
import { startCluster, testingOnPostgres } from './helpers/postgres.ts';

/** What the build reads: a change in any of these makes dist/ stale. */
const SOURCES = ['src', 'web', 'config', 'package.json'];
const STAMP = path.join(PROJECT_ROOT, 'dist', 'build-stamp');

/** The newest modification time (ms) under `p`. */
function newestMtime(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, name)));
  return newest;
}

/** Why dist/ must be rebuilt, or undefined when it is up to date. */
export function staleReason(): string | undefined {
  const built = Number(fs.readFileSync(STAMP, { encoding: 'utf8', flag: 'r' }).trim() || 0);
  for (const source of SOURCES) if (newestMtime(path.join(PROJECT_ROOT, source)) > built) return `${source} changed since the last build`;
  return undefined;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  build();
  if (!testingOnPostgres()) return undefined;
  // FM_TEST_DATABASE=postgres: one cluster for the run, a fresh database per server (helpers/postgres.ts).
  const cluster = await startCluster();
  project.provide('fmPostgresUrl', cluster.url());
  process.stdout.write(`global setup: PostgreSQL on port ${cluster.port}\n`);
  return () => cluster.destroy();
}

function build(): void {
  let reason: string | undefined;
  try {
    reason = staleReason();
  } catch {
    reason = 'no build stamp';
  }
  if (!reason) return;
  process.stdout.write(`global setup: building dist/ (${reason})\n`);
  execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'config', 'build.mjs')], { cwd: PROJECT_ROOT, stdio: 'inherit' });
}
