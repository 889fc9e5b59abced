/**
 * PostgreSQL faults (issue 21): unreachable at start, a clear message without the password and
 * exit status 1; TLS parameters of the URL reach the driver; lost while serving, requests that
 * need it answer 503 with a clear message while a download under way goes on, and the
 * instance recovers by itself when the server is back.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { runFm } from '../helpers/cli.ts';
import { freePort, postgresBin, startCluster, type PgCluster } from '../helpers/postgres.ts';

describe.skipIf(!postgresBin())('PostgreSQL faults', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  it('an unreachable database at start is one clear line without the password, and exit status 1', async () => {
    const url = `postgres://fm:hunter2secret@127.0.0.1:${await freePort()}/fm`;
    const home = tempDir();
    for (const args of [
      ['serve', home, '--port', '0'],
      ['users', 'ls'],
    ]) {
      const res = await runFm([...args, '--database', url], { env: { XDG_DATA_HOME: home } });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^fm: cannot reach the database postgres:\/\/fm:\*\*\*@127\.0\.0\.1:\d+\/fm: .*ECONNREFUSED/);
      expect(res.stdout + res.stderr).not.toContain('hunter2secret');
    }
  });

  it('passes the TLS parameters of the URL to the driver (this server has no TLS: sslmode=require is refused)', async () => {
    const res = await runFm(['users', 'ls', '--database', `${cluster.url()}?sslmode=require`], { env: { XDG_DATA_HOME: tempDir() } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/does not support SSL/);
  });

  it("refuses a database of another program, and one whose schema is newer than this fm's", async () => {
    const { openDatabase } = await import('../../src/storage/db.ts');
    const pg = (await import('pg')).default;
    const exec = async (url: string, sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(sql);
      await client.end();
    };
    const other = await cluster.createDatabase();
    await exec(other, 'CREATE TABLE invoices (id int)');
    await expect(openDatabase(other, { dataDir: tempDir() })).rejects.toThrow(/holds tables of another program .*refusing to change it/);
    const newer = await cluster.createDatabase();
    await (await openDatabase(newer, { dataDir: tempDir() })).close();
    await exec(newer, 'UPDATE fm_schema SET version = 99');
    await expect(openDatabase(newer, { dataDir: tempDir() })).rejects.toThrow(/has schema version 99; this fm understands up to 2/);
  });

  describe('lost while serving', () => {
    let fm: FmServer;
    let admin: Client;
    const big = crypto.randomBytes(32 * 1024 * 1024);
    beforeAll(async () => {
      // Trust authentication ignores the password: it is there to prove it never shows.
      const url = (await cluster.createDatabase()).replace('fm@', 'fm:hunter2secret@');
      fm = await startFm({ args: ['--database', url] });
      admin = await adminClient(fm);
      fs.writeFileSync(path.join(fm.root, 'big.bin'), big);
    });
    afterAll(async () => {
      await fm?.stop();
    });

    it('answers 503 with a clear message, keeps a download going, and recovers when the database is back', async () => {
      const download = await admin.fetch('/api/raw/big.bin');
      expect(download.status).toBe(200);
      const reader = download.body!.getReader();
      const chunks: Uint8Array[] = [];
      const first = await reader.read();
      chunks.push(first.value!);

      await cluster.stop();
      try {
        const res = await admin.fetch('/api/resources/');
        expect(res.status).toBe(503);
        expect(res.headers.get('x-fm-error')).toBe('database_unavailable');
        const text = await res.text();
        expect(text).toMatch(/the database is unreachable .*try again shortly/);
        expect(text).not.toContain('hunter2secret');
        const login = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: fm.adminPassword }) });
        expect(login.status).toBe(503);
        // The download started before goes on to its last byte.
        for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
        expect(Buffer.concat(chunks).equals(big)).toBe(true);
      } finally {
        await cluster.start();
      }
      await expect.poll(async () => (await admin.fetch('/api/resources/')).status, { timeout: 20_000, interval: 100 }).toBe(200);
      expect(fm.output()).not.toMatch(/internal error/);
      expect(fm.output()).toMatch(/database: postgres:\/\/fm:\*\*\*@127\.0\.0\.1/);
      expect(fm.output()).not.toContain('hunter2secret');
    }, 60_000);
  });
});
