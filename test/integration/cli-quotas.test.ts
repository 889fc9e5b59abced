/**
 * `fm users add|update --quota --quota-files` and `fm config set --quota` (the new-user defaults)
 * as subprocesses against the database of a running server, checked through its HTTP API.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { adminClient, type Client, startFm, type FmServer } from '../helpers/server.ts';

vi.setConfig({ testTimeout: 120_000 });

let fm: FmServer;
let admin: Client;

const cli = (args: string[]) => runFm(['--database', fm.dbFile, ...args]);

async function quotaOf(username: string): Promise<{ quota: number; quotaFiles: number }> {
  const users = await admin.json<Array<{ username: string; quota: number; quotaFiles: number }>>('/api/users');
  const u = users.find((x) => x.username === username)!;
  return { quota: u.quota, quotaFiles: u.quotaFiles };
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

describe('fm users --quota', () => {
  it('add and update set the byte and entry quotas; find shows them; 0 removes them', async () => {
    expect((await cli(['users', 'add', 'dave', 'dave-long-password', '--scope', '/dave', '--quota', '10GiB', '--quota-files', '100000'])).code).toBe(0);
    expect(await quotaOf('dave')).toEqual({ quota: 10 * 1024 ** 3, quotaFiles: 100_000 });
    expect((await cli(['users', 'find', 'dave'])).stdout).toMatch(/quota:\s+10GB\nquota files:\s+100000\n/);
    expect((await cli(['users', 'update', 'dave', '--quota', '1.5GB'])).code).toBe(0);
    expect(await quotaOf('dave')).toEqual({ quota: 1.5 * 1024 ** 3, quotaFiles: 100_000 });
    expect((await cli(['users', 'update', 'dave', '--quota', '0', '--quota-files', '0'])).code).toBe(0);
    expect(await quotaOf('dave')).toEqual({ quota: 0, quotaFiles: 0 });
  });

  it('refuses a size or a count it cannot read, changing nothing', async () => {
    const size = await cli(['users', 'update', 'admin', '--quota', 'ten']);
    expect(size.code).not.toBe(0);
    expect(size.stderr).toContain('invalid size "ten"');
    const count = await cli(['users', 'update', 'admin', '--quota-files', '-1']);
    expect(count.code).not.toBe(0);
    expect(count.stderr).toContain('--quota-files');
    expect(await quotaOf('admin')).toEqual({ quota: 0, quotaFiles: 0 });
  });

  it('config set --quota sets the defaults that users add takes', async () => {
    expect((await cli(['config', 'set', '--quota', '1GiB', '--quota-files', '10'])).code).toBe(0);
    expect((await cli(['users', 'add', 'erin', 'erin-long-password', '--scope', '/erin'])).code).toBe(0);
    expect(await quotaOf('erin')).toEqual({ quota: 1024 ** 3, quotaFiles: 10 });
    expect((await cli(['config', 'cat'])).stdout).toMatch(/quota:\s+1GB\n/);
  });
});
