/**
 * Share links: creation (through the gate, op 'share'), listing and deletion for signed-in
 * users, the public side (every hit re-checks the owner, their permissions, scope and rules
 * through the same gate), brute-force throttling of share passwords, and the lifecycle that
 * removes links when their path is deleted or moved or their owner is deleted.
 *
 * A path that is deleted and later recreated is not re-exposed: each link records the
 * identity (device, inode and birth time) of its target, and a public request whose target
 * has another identity deletes the link and answers 404. Inodes are reused at once on ext4,
 * so the birth time is what tells a recreated path apart; on file systems without birth
 * times only the inode is compared. Saving a shared file through fm replaces its inode (the
 * atomic write), so a `written` event for exactly a shared file refreshes the stored identity.
 */
import crypto from 'node:crypto';
import { realPath, stat } from './files/disk/lookup.ts';
import type { Stats } from './files/disk/types.ts';
import path from 'node:path';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.ts';
import { expireAt, type ShareRequest } from '../api/shares.ts';
import type { Repos, Logger } from './context.ts';
import type { Access, Gate, Target } from './files/gate.ts';
import { isWithin } from './files/paths.ts';
import type { FileEvents } from './events.ts';
import { cleanScope } from './scope.ts';
import { checkPassword, hashPassword } from './passwords.ts';
import { Throttle, sleep, type ThrottleOptions, LOGIN_THROTTLE } from './throttle.ts';
import { addressKey } from './addresses.ts';
import { newToken, type ShareIdentity, type ShareRecord } from '../storage/repos/shares.ts';
import type { UserRecord } from '../storage/repos/users.ts';

/** A link with its owner's name (in lists that show every user's links). */
export interface OwnedShare {
  share: ShareRecord;
  owner?: string;
}

function identityOf(st: Stats): ShareIdentity {
  return { dev: st.dev, ino: st.ino, birthtimeMs: st.birthtimeMs || 0 };
}

function sameIdentity(a: ShareIdentity, b: ShareIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && (a.birthtimeMs === 0 || b.birthtimeMs === 0 || a.birthtimeMs === b.birthtimeMs);
}

/** Credentials a public request may carry. */
export interface ShareCredentials {
  /** X-SHARE-PASSWORD, still URL-encoded. */
  password?: string;
  token?: string;
  /** Client address (throttling). */
  ip: string;
}

/** What a public request does with a link (see ShareService.open). */
export type ShareUse = 'view' | 'drop' | 'info';

/** A public request that passed every check. */
export interface OpenShare {
  share: ShareRecord;
  owner: UserRecord;
  /** The shared file or folder as the owner's access resolves it (op 'share'). */
  shareTarget: Target;
  /** For a folder share: the access rooted at the folder; for a file share: the owner's access. */
  access: Access;
  /** What the subpath names (the shared file itself for a file share), resolved for 'download'. */
  target: Target;
}

export class ShareService {
  /** Wrong share passwords, keyed per share and per client address. */
  readonly throttle: Throttle;

  constructor(
    private readonly repos: Repos,
    private readonly gate: Gate,
    private readonly log: Logger,
    throttle: ThrottleOptions = LOGIN_THROTTLE,
  ) {
    const counts = repos.db.cluster?.throttle;
    this.throttle = new Throttle(throttle, counts && { counts, scope: 'share' });
  }

  /** Subscribes to file events so links follow deletions, moves and saves. */
  attach(events: FileEvents): void {
    events.on('removed', (e) => this.pathGone(e.abs));
    events.on('moved', async (e) => {
      await this.pathGone(e.fromAbs);
      // Whatever was at the destination was replaced.
      await this.pathGone(e.toAbs);
    });
    events.on('written', (e) => (e.isDir ? undefined : this.fileSaved(e.abs)));
  }

  /** Creates a link for a path that must exist and be shareable by this access. */
  async create(access: Access, virtual: string, req: ShareRequest): Promise<ShareRecord> {
    const target = await this.gate.resolve(access, virtual, 'share', { mustExist: true });
    if (!target.stat) throw new NotFoundError('the link target does not exist');
    if (req.uploadOnly) {
      if (!target.isDir) throw new BadRequestError('only a folder can have an upload-only link');
      // Visitors write as the owner: a link nobody could upload through is refused now.
      this.gate.checkPermission(access, 'create');
    }
    const password_hash = req.password ? await hashPassword(req.password) : '';
    return this.repos.shares.create({
      path: target.virtual,
      userID: access.user.id,
      expire: expireAt(req),
      password_hash,
      token: password_hash ? newToken() : '',
      identity: identityOf(target.stat),
      abs: target.abs,
      real: target.real,
      ...(req.uploadOnly ? { drop: { ...req.limits, files: 0, bytes: 0, last: 0, reserved: {} } } : {}),
    });
  }

  /** The viewer's links; every link, with owners' names, for admins. */
  async list(viewer: UserRecord): Promise<OwnedShare[]> {
    if (!viewer.perm.admin) return (await this.repos.shares.listByUser(viewer.id)).map((share) => ({ share }));
    return this.listWithOwners();
  }

  /** Every link (or one user's), with owners' names: admins' lists and `fm shares ls`. */
  async listWithOwners(userID?: number): Promise<OwnedShare[]> {
    const names = new Map((await this.repos.users.list()).map((u) => [u.id, u.username]));
    const shares = userID === undefined ? await this.repos.shares.list() : await this.repos.shares.listByUser(userID);
    return shares.map((share) => ({ share, owner: names.get(share.userID) ?? '' }));
  }

  /** The viewer's own links for exactly this virtual path. */
  async forPath(viewer: UserRecord, virtual: string): Promise<ShareRecord[]> {
    return (await this.repos.shares.listByUser(viewer.id)).filter((s) => s.path === virtual);
  }

  /** Deletes a link by its exact hash: 404 unknown, 403 unless the owner or an admin. Returns the deleted link. */
  async remove(viewer: UserRecord, hash: string): Promise<ShareRecord> {
    const share = await this.repos.shares.get(hash);
    if (!share) throw new NotFoundError('share not found');
    if (!viewer.perm.admin && share.userID !== viewer.id) throw new ForbiddenError('only the owner or an admin can delete this link');
    await this.repos.shares.delete(share.hash);
    return share;
  }

  /**
   * Opens a link for a public request: the link must be live, its owner must exist and pass
   * the password check, and the owner's current access must still resolve the shared path
   * (op 'share': share and download permission, scope, rules, symlinks) to the same object.
   * A folder share is then rooted at the folder and the subpath resolved for 'download'.
   * `as` says what the request does: 'view' (list, download, preview) refuses an upload-only
   * link and 'drop' (upload) any other, both with a 403 after the password check; 'info' (the
   * share page's first call) accepts both. A drop link resolves no subpath.
   */
  async open(hash: string, subpath: string, creds: ShareCredentials, as: ShareUse = 'view'): Promise<OpenShare> {
    const share = await this.repos.shares.get(hash);
    if (!share) throw new NotFoundError('share not found');
    const owner = await this.repos.users.get(share.userID);
    if (!owner) {
      await this.repos.shares.delete(share.hash);
      throw new NotFoundError('share not found');
    }
    await this.checkCredentials(share, creds);
    if (as === 'view' && share.drop) throw new ForbiddenError('this link is upload-only: it can be uploaded to, not listed or downloaded', 'upload_only');
    if (as === 'drop' && !share.drop) throw new ForbiddenError('this link is not upload-only: it cannot be uploaded to', 'not_upload_only');

    const settings = await this.repos.settings.get();
    const ownerAccess = await this.gate.access(owner, settings);
    const shareTarget = await this.gate.resolve(ownerAccess, share.path, 'share', { mustExist: true });
    if (!shareTarget.stat) throw new NotFoundError('share not found');
    if (share.identity && !sameIdentity(share.identity, identityOf(shareTarget.stat))) {
      // Deleted and recreated behind fm's back: the link was for something else.
      await this.repos.shares.delete(share.hash);
      throw new NotFoundError('share not found');
    }
    if (!shareTarget.isDir) {
      return { share, owner, shareTarget, access: ownerAccess, target: shareTarget };
    }
    // Rooted at the folder's real location; rules see both the real path of every entry and the
    // path through the shared name (gate.subAccess keeps the link's path as an alias).
    const access = this.gate.subAccess(ownerAccess, shareTarget);
    // A drop link names nothing inside its folder: no subpath is resolved, so none can be probed.
    if (share.drop) return { share, owner, shareTarget, access, target: shareTarget };
    const target = await this.gate.resolve(access, subpath, 'download');
    return { share, owner, shareTarget, access, target };
  }

  /**
   * 401 unless the link has no password, or a valid token or password is given. Password
   * guesses are throttled per link and per address; a valid token is checked first and never
   * throttled, so a visitor who already entered the password is not locked out by someone
   * else's guesses.
   */
  private async checkCredentials(share: ShareRecord, creds: ShareCredentials): Promise<void> {
    if (!share.password_hash) return;
    if (creds.token === undefined && creds.password === undefined) throw new UnauthorizedError('this link needs a password');
    if (creds.token !== undefined && share.token && safeEqual(creds.token, share.token)) return;
    const keys = [`share:${share.hash}`, `ip:${addressKey(creds.ip)}`];
    const delay = await this.throttle.check(keys);
    let ok: boolean;
    try {
      if (delay) await sleep(delay);
      ok = creds.password !== undefined && (await checkPassword(decodeHeader(creds.password), share.password_hash));
    } catch (err) {
      await this.throttle.release(keys);
      throw err;
    }
    if (ok) {
      await this.throttle.succeed(keys);
      return;
    }
    await this.throttle.fail(keys);
    throw new UnauthorizedError('wrong password');
  }

  /** Removes the links of a deleted user. */
  async userDeleted(user: UserRecord): Promise<void> {
    const removed = await this.repos.shares.deleteByUser(user.id);
    if (removed.length) this.log.info(`shares: removed ${removed.length} link(s) of deleted user ${user.username}`);
  }

  /** Removes every link at or under an absolute path that was deleted, moved away or replaced. */
  async pathGone(abs: string): Promise<void> {
    const shares = await this.repos.shares.list();
    if (!shares.length) return;
    const roots = await this.scopeRoots(shares);
    for (const s of shares) {
      if (this.locations(s, roots).some((p) => isWithin(abs, p))) await this.repos.shares.delete(s.hash);
    }
  }

  /** A file saved through fm keeps its links: the new inode becomes the link's identity. */
  async fileSaved(abs: string): Promise<void> {
    const shares = await this.repos.shares.list();
    if (!shares.length) return;
    const roots = await this.scopeRoots(shares);
    for (const s of shares) {
      if (!this.locations(s, roots).includes(abs)) continue;
      const st = await stat(abs).catch(() => undefined);
      if (!st || st.isDirectory()) continue;
      await this.repos.shares.update({ ...s, identity: identityOf(st) });
    }
  }

  /** Where a link's target may be: under its owner's current scope, and where it was at creation. */
  private locations(s: ShareRecord, roots: Map<number, string | undefined>): string[] {
    const out: string[] = [];
    const root = roots.get(s.userID);
    if (root) out.push(s.path === '/' ? root : path.join(root, s.path));
    if (s.abs) out.push(s.abs);
    if (s.real) out.push(s.real);
    return out;
  }

  /** Real scope folder of each link owner (without creating anything). */
  private async scopeRoots(shares: ShareRecord[]): Promise<Map<number, string | undefined>> {
    const roots = new Map<number, string | undefined>();
    for (const id of new Set(shares.map((s) => s.userID))) {
      const user = await this.repos.users.get(id);
      if (!user) {
        roots.set(id, undefined);
        continue;
      }
      let abs: string;
      try {
        abs = path.join(this.gate.root, cleanScope(user.scope || '.'));
      } catch {
        roots.set(id, undefined);
        continue;
      }
      roots.set(id, await realPath(abs).catch(() => abs));
    }
    return roots;
  }
}

/** Constant-time string comparison (hashes first, so lengths leak nothing either). */
function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

/** X-SHARE-PASSWORD is URL-encoded by clients; a value that is not is taken as is. */
function decodeHeader(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
