/** Helpers of the drop-link (upload-only share) tests: a server with alice and her drop folder, raw uploads. */
import fs from 'node:fs';
import path from 'node:path';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { rawRequest, type RawResponse } from '../helpers/http-raw.ts';
import { PERMS, share, type ShareDto } from './share-helpers.ts';
import { onPostgres } from './tus-helpers.ts';

export interface DropFm {
  fm: FmServer;
  admin: Client;
  alice: { client: Client; id: number };
  /** alice's shared folder on disk. */
  inbox: string;
  /** Where unfinished tus uploads are kept (on PostgreSQL, the shared root's `.fm-uploads`). */
  staging: string;
  /** A fresh drop link of /inbox (body: limits, password…). */
  drop(body?: Record<string, unknown>): Promise<ShareDto>;
  close(): Promise<void>;
}

/** fm with its root in its own temp folder beside the data folder (so staging is `<home>/uploads`). */
export async function startDropFm(args: string[] = []): Promise<DropFm> {
  const root = tempDir('fm-drop-root-');
  const fm = await startFm({ root, args: ['--log', 'off', ...args] });
  fs.mkdirSync(path.join(fm.root, 'alice/inbox'), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'alice/inbox/kept.txt'), 'already there');
  fs.writeFileSync(path.join(fm.root, 'alice/private.txt'), 'private');
  const admin = await adminClient(fm);
  const alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  return {
    fm,
    admin,
    alice,
    inbox: path.join(fm.root, 'alice/inbox'),
    staging: onPostgres(fm) ? path.join(fs.realpathSync(fm.root), '.fm-uploads') : path.join(fm.home, 'uploads'),
    drop: (body = {}) => share(alice.client, '/inbox', { uploadOnly: true, ...body }),
    async close() {
      await fm.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** POST /api/public/upload/{hash}/{rawName}, the name sent byte for byte. */
export function postDrop(fm: FmServer, hash: string, rawName: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(fm.url, {
    method: 'POST',
    path: `/api/public/upload/${hash}/${rawName}`,
    headers: { 'Content-Length': String(Buffer.byteLength(body)), ...headers },
    body,
  });
}

/** A tus request to a drop link (`rest`: `{name}` or the Location's path and query). */
export function tusDrop(fm: FmServer, method: string, rest: string, headers: Record<string, string> = {}, body?: Buffer): Promise<RawResponse> {
  const p = rest.startsWith('/api/') ? rest : `/api/public/tus/${rest}`;
  return rawRequest(fm.url, { method, path: p, headers: { 'Tus-Resumable': '1.0.0', ...headers }, body });
}

/** Every file under a folder, relative, with its content (to see that nothing else was written). */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out[r] = fs.readFileSync(path.join(dir, r), 'utf8');
    }
  };
  walk('');
  return out;
}

/** The files in the staging folder (unfinished uploads). */
export function stagingFiles(staging: string): string[] {
  return fs.existsSync(staging) ? fs.readdirSync(staging).sort() : [];
}
