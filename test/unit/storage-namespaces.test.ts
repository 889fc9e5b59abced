/**
 * Every namespace of the database keeps its own records: on SQLite they share one connection
 * (storage/db.ts), so a clear, a listing or a key of one must never reach another's rows.
 * Runs on PostgreSQL too under FM_TEST_DATABASE=postgres.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NAMESPACES, openDatabase, type Database } from '../../src/storage/db.ts';
import { testDatabase, testingOnPostgres } from '../helpers/postgres.ts';

let home: string;
let db: Database;

beforeEach(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-namespaces-'));
  db = await openDatabase(await testDatabase(home), { dataDir: home });
});

afterEach(async () => {
  await db.close();
  fs.rmSync(home, { recursive: true, force: true });
});

/** The database file's descriptors this process holds (SQLite), by /proc/self/fd. */
function openDescriptorsOf(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed meanwhile (readdir's own descriptor)
    }
  }).length;
}

describe('the database namespaces', () => {
  it('each reads, lists, deletes and clears only its own records, under the same key', async () => {
    for (const name of NAMESPACES) await db.ns(name).set('k', { from: name });
    await db.ns('users').set('only-users', 1);
    for (const name of NAMESPACES) expect(await db.ns(name).get('k')).toEqual({ from: name });
    expect(await db.ns('shares').get('only-users')).toBeUndefined();
    // entries() of a memoised namespace and of a plain one
    expect(await db.entries('users')).toEqual(
      expect.arrayContaining([
        ['k', { from: 'users' }],
        ['only-users', 1],
      ]),
    );
    expect(await db.entries('users')).toHaveLength(2);
    expect(await db.entries('tokens')).toEqual([['k', { from: 'tokens' }]]);

    await db.ns('users').clear();
    expect(await db.entries('users')).toEqual([]);
    await db.ns('tokens').delete('k');
    expect(await db.ns('tokens').get('k')).toBeUndefined();
    for (const name of NAMESPACES.filter((n) => n !== 'users' && n !== 'tokens')) {
      expect(await db.ns(name).get('k'), name).toEqual({ from: name });
    }
  });

  it('sees a change another connection (the CLI) made, after the refresh every request makes', async () => {
    await db.ns('settings').set('s', 1);
    expect(await db.ns('settings').get('s')).toBe(1);
    const cli = await openDatabase(await testDatabase(home), { dataDir: home });
    try {
      await cli.ns('settings').set('s', 2);
    } finally {
      await cli.close();
    }
    await db.refresh();
    expect(await db.ns('settings').get('s')).toBe(2);
  });

  it.skipIf(testingOnPostgres())('opens the SQLite file once, not once per namespace', () => {
    expect(openDescriptorsOf(db.file)).toBe(1);
  });
});
