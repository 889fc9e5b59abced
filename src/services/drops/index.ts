/**
 * Upload-only (drop) links: visitors upload into the shared folder, never list or download it.
 * Every request opens the link through the share service ('drop': password, expiry, the owner's
 * current permissions, scope and rules) and resolves the name for 'create' with the owner's
 * access rooted at the folder, so a revoked create permission or a rule refuses the next
 * request. Files are written by the owner's own write paths (writeResource for a plain POST,
 * the upload service for tus), never over an existing name (`name (1).ext`), and counted
 * against the link's limits (counters.ts).
 */
import type { Readable } from 'node:stream';
import type { DropInfo } from '../../api/shares.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { Target } from '../files/gate.ts';
import { placeUnderFreeName } from '../files/free-target.ts';
import { writeResource } from '../files/operations.ts';
import { baseName } from '../files/paths.ts';
import type { Repos } from '../context.ts';
import type { Services } from '../index.ts';
import type { OpenShare, ShareCredentials } from '../shares.ts';
import type { UploadStatus } from '../uploads/index.ts';
import { randomUploadId } from '../uploads/staging.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import { DropCounters } from './counters.ts';
import { dropPath } from './names.ts';

export { DropLimitError } from './counters.ts';
export { dropPath } from './names.ts';

type Deps = Pick<Services, 'shares' | 'gate' | 'uploads' | 'hooks' | 'events' | 'quotas'>;

/** A drop link opened for an upload of one name. */
export interface DropTarget {
  hash: string;
  open: OpenShare;
  /** The name under the shared folder, resolved with the owner's access for 'create'. */
  target: Target;
}

export class DropService {
  readonly counters: DropCounters;

  constructor(
    repos: Repos,
    private readonly deps: () => Deps,
  ) {
    this.counters = new DropCounters(repos, async (id) => (await deps().uploads.staging.read(id)) !== undefined);
  }

  /** Opens a drop link for an upload of `encodedName` (as in the URL): 400 for a bad name, 403/404 as the link's checks say. */
  async open(hash: string, encodedName: string, creds: ShareCredentials): Promise<DropTarget> {
    const virtual = dropPath(encodedName);
    const { shares, gate } = this.deps();
    const open = await shares.open(hash, '/', creds, 'drop');
    const target = await gate.resolve(open.access, virtual, 'create', { mustExist: false, allowRoot: false });
    return { hash, open, target };
  }

  /** What the drop page shows: the folder's name and the limits, never its items. */
  async info(open: OpenShare): Promise<DropInfo> {
    const drop = open.share.drop;
    if (!drop) throw new NotFoundError('share not found');
    const { maxBytes, maxFiles, maxFileSize } = drop;
    return {
      uploadOnly: true,
      name: baseName(open.shareTarget.virtual),
      limits: { maxBytes, maxFiles, maxFileSize },
      left: await this.counters.left(open.share.hash),
    };
  }

  /**
   * A plain upload (POST) of `length` declared bytes: room first (413 before any byte), then the
   * owner's write path (writeResource) under a free name. A name taken after the body was read
   * cannot be retried (the bytes are gone): 409, and the visitor sends it again.
   */
  async receive(drop: DropTarget, body: Readable, length: number): Promise<void> {
    const key = await this.counters.reserve(drop.hash, length);
    const { gate } = this.deps();
    const { access } = drop.target;
    try {
      await placeUnderFreeName(gate, drop.target, async (free) => {
        if (body.readableDidRead) throw new ConflictError('the name was taken during the upload: send the file again');
        // Never more than declared, nor than the instance's upload limit (413 either way).
        const maxSize = access.settings.maxUploadSize > 0 ? Math.min(access.settings.maxUploadSize, length) : length;
        await writeResource(this.deps(), access, { virtual: free.virtual, folder: false, kind: 'create', override: false, body, length, maxSize });
      });
    } catch (err) {
      await this.counters.release(drop.hash, key);
      throw err;
    }
    await this.counters.received(drop.hash, length, key);
  }

  /** tus creation: room for the declared length, then an upload addressed by a fresh id, tagged with the link. */
  async createUpload(drop: DropTarget, length: number, metadata: string): Promise<{ id: string; status: UploadStatus }> {
    const id = randomUploadId();
    await this.counters.reserve(drop.hash, length, id);
    let status: UploadStatus;
    try {
      status = await this.deps().uploads.create(drop.target, { length, override: false, metadata, ref: { id, tag: drop.hash }, freeName: true });
    } catch (err) {
      await this.counters.release(drop.hash, id);
      throw err;
    } finally {
      this.counters.created(id);
    }
    if (status.finished) await this.counters.received(drop.hash, length, id);
    return { id, status };
  }

  /** tus HEAD (which finishes an upload whose bytes are all there). */
  async uploadStatus(drop: DropTarget, id: string): Promise<UploadStatus> {
    return this.counted(drop, id, await this.deps().uploads.status(drop.target, { id, tag: drop.hash }));
  }

  /** tus PATCH. */
  async writeUpload(drop: DropTarget, id: string, offset: number, body: Readable, contentLength?: number): Promise<UploadStatus> {
    return this.counted(drop, id, await this.deps().uploads.write(drop.target, offset, body, contentLength, { id, tag: drop.hash }));
  }

  /** tus DELETE: the upload and its reservation. */
  async terminateUpload(drop: DropTarget, id: string): Promise<void> {
    await this.deps().uploads.terminate(drop.target, { id, tag: drop.hash });
    await this.counters.release(drop.hash, id);
  }

  /** A request for an upload of a link that is gone: the upload's staging goes too. */
  async linkGone(hash: string, id: string): Promise<void> {
    await this.deps().uploads.discard({ id, tag: hash });
  }

  /**
   * Deletes a link for its owner or an admin (DELETE /api/share/{hash}) in the link's counter
   * queue, so an upload finishing at that moment cannot write the record back; a drop link's
   * unfinished uploads go with it.
   */
  async removeLink(viewer: UserRecord, hash: string): Promise<void> {
    const removed = await this.counters.exclusive(hash, () => this.deps().shares.remove(viewer, hash));
    for (const id of Object.keys(removed.drop?.reserved ?? {})) await this.linkGone(removed.hash, id);
  }

  private async counted(drop: DropTarget, id: string, status: UploadStatus): Promise<UploadStatus> {
    if (status.finished) await this.counters.received(drop.hash, status.length, id);
    return status;
  }
}
