/**
 * Throwaway PostgreSQL clusters from Debian's `postgresql` package: initdb in a temporary folder,
 * a free port on 127.0.0.1, trust authentication, run as an unprivileged user when the tests run
 * as root (initdb and postgres refuse root). One cluster serves a whole vitest run when
 * FM_TEST_DATABASE=postgres (global-setup.ts provides its URL); a test that stops and starts the
 * server starts its own.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The newest installed server's programs, or undefined when PostgreSQL is not installed. */
export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined;
}

export interface PgCluster {
  port: number;
  /** A URL of database `db` as the cluster's superuser `fm`. */
  url(db?: string): string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast: connections are cut), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

/** The unprivileged user the cluster runs as when we are root. */
const RUN_AS = { user: 'nobody', uid: 65534, gid: 65534 };

async function pgRun(bin: string, program: string, args: string[]): Promise<void> {
  const file = path.join(bin, program);
  if (process.getuid?.() === 0) await run('setpriv', [`--reuid=${RUN_AS.uid}`, `--regid=${RUN_AS.gid}`, '--clear-groups', file, ...args], { cwd: '/' });
  else await run(file, args, { cwd: '/' });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startCluster(): Promise<PgCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian package postgresql)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-pg-'));
  if (process.getuid?.() === 0) fs.chownSync(dir, RUN_AS.uid, RUN_AS.gid);
  const data = path.join(dir, 'data');
  await pgRun(bin, 'initdb', ['-D', data, '-U', 'fm', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  const start = () => pgRun(bin, 'pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', options, 'start']);
  const stop = () => pgRun(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  const url = (db = 'postgres') => `postgres://fm@127.0.0.1:${port}/${db}`;
  return {
    port,
    url,
    createDatabase: () => createDatabaseOn(url()),
    stop,
    start,
    async destroy() {
      await stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on `serverUrl`'s cluster (the one global-setup.ts started). */
export async function createDatabaseOn(serverUrl: string): Promise<string> {
  const name = `fm_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** True when this run's servers use PostgreSQL (FM_TEST_DATABASE=postgres). */
export function testingOnPostgres(): boolean {
  return process.env.FM_TEST_DATABASE === 'postgres';
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run-wide cluster's URL (admin database), when FM_TEST_DATABASE=postgres. */
    fmPostgresUrl: string;
  }
}

/**
 * Where a test server keeps its records: `<home>/fm.db`, or, when FM_TEST_DATABASE=postgres and
 * the test did not prepare that file, a fresh database on the run's PostgreSQL cluster.
 */
export async function testDatabase(home: string, sqlite = false): Promise<string> {
  const file = path.join(home, 'fm.db');
  // A file the test prepared (with the CLI, or a copy) is what the test is about: it is used.
  if (sqlite || !testingOnPostgres() || fs.existsSync(file)) return file;
  // A server started again on the same home (restart tests) finds its database again.
  const remembered = path.join(home, 'fm.db.url');
  if (fs.existsSync(remembered)) return fs.readFileSync(remembered, 'utf8');
  const { inject } = await import('vitest');
  const url = await createDatabaseOn(inject('fmPostgresUrl'));
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(remembered, url);
  return url;
}
