/** Builds every service from the database and the server options (one composition root). */
import type { Database } from '../storage/db.ts';
import type { Cluster } from '../storage/cluster.ts';
import { createRepos, type Logger, type Repos } from './context.ts';
import { TokenService } from './tokens.ts';
import { AccessTokenService } from './access-tokens.ts';
import { TotpService } from './totp.ts';
import { AuthService, type AuthOptions } from './auth.ts';
import { OidcService } from './oidc.ts';
import { UserService } from './users.ts';
import { Gate } from './files/gate.ts';
import { FileEvents } from './events.ts';
import { SearchIndex } from './indexer/index.ts';
import { ShareService } from './shares.ts';
import { DropService } from './drops/index.ts';
import type { HookRunner } from './hooks.ts';
import { PreviewService } from './previews.ts';
import { createSearchService, type SearchService } from './search/index.ts';
import path from 'node:path';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Settings, SharedSettings } from '../api/settings.ts';
import { DEFAULT_LIMITS, ExecService, Sandbox, validateExecSettings, type ExecLimits, type SandboxOptions } from './exec/index.ts';
import { ExecHookRunner } from './exec/hooks.ts';
import { SettingsService, type AllowlistOptions } from './settings.ts';
import { createUploads, type UploadService } from './uploads/index.ts';
import type { DiskSpace } from './uploads/disk.ts';
import type { UploadSyncOptions } from './uploads/staging.ts';
import { createDavLocks, type DavLocks } from './dav/index.ts';
import { TrashService } from './trash/index.ts';
import { QuotaService } from './quotas.ts';
import { FolderUsage } from './quota-usage.ts';
import { AuditLog } from './audit.ts';
import { LiveFolders } from './live/hub.ts';
import { watchFolderEntries } from './files/disk/folder-entries-watch.ts';

export interface ServiceOptions {
  /**
   * Absolute, real path of the folder fm serves; '' in the admin CLI, which serves no files.
   * So that the CLI can build the same services, createServices must not start background work.
   */
  root: string;
  /** Token lifetime in seconds. */
  tokenLifetime: number;
  auth: AuthOptions;
  log: Logger;
  /** fm's own data folder (the database's folder): caches and upload staging live here. */
  dataDir: string;
  /** fm's cache folder: previews and the search index snapshot (default `<dataDir>/cache`). */
  cacheDir?: string;
  /** Limits of each command run and hook (default: 10 minutes, 10 MiB of output). */
  exec?: Partial<ExecLimits>;
  /** Where bwrap is (default: looked up in PATH) and whether to run unsandboxed (`--exec-unsandboxed`). */
  sandbox?: SandboxOptions;
  /** Where uploads read the free disk space (default: statfs; tests give a small figure). */
  diskSpace?: DiskSpace;
  /** How uploads are made durable (default: the kernel's boot id, an fdatasync every 64 MiB; tests simulate a reboot). */
  uploadSync?: UploadSyncOptions;
}

export interface Services {
  repos: Repos;
  tokens: TokenService;
  /** Personal access tokens (scripts, WebDAV clients). */
  accessTokens: AccessTokenService;
  /** Two-factor login (TOTP): enrolment, codes, recovery codes. */
  totp: TotpService;
  auth: AuthService;
  /** Single sign-on with an OpenID provider. */
  oidc: OidcService;
  users: UserService;
  /** The global settings as admins read and change them over HTTP. */
  settings: SettingsService;
  /** Share links (authenticated and public side, lifecycle). */
  shares: ShareService;
  /** The one path gate every file-touching route goes through. */
  gate: Gate;
  /** What changed on disk (shares, the search index and caches listen). */
  events: FileEvents;
  /** The live search index of the root (started by `fm serve`; queries fall back to a walk until ready). */
  searchIndex: SearchIndex;
  /** Event hooks around file operations (the exec module installs the real runner). */
  hooks: HookRunner;
  /** Image thumbnails and resized previews, cached on disk. */
  previews: PreviewService;
  /** Name search under a folder (a walk today; the index of issue 8 later). */
  search: SearchService;
  /** The command runner (WebSocket /api/command), also used by hooks and the auth hook. */
  exec: ExecService;
  /** Resumable uploads (tus). */
  uploads: UploadService;
  /** WebDAV write locks (held in memory). */
  davLocks: DavLocks;
  options: ServiceOptions;
  log: Logger;
  /** Called after a user is deleted (shares and other per-user data are cleaned up here). */
  onUserDeleted?: (user: UserRecord) => Promise<void>;
  /**
   * Extra checks on new settings (e.g. the exec allowlist); throws an FmError to refuse.
   * Called by saveSettings (services/settings.ts) for the API and the CLI alike.
   */
  validateSettings?: (next: Settings, current: SharedSettings, options?: AllowlistOptions) => Promise<void>;
  /** Deleted items kept for restoring (services/trash). */
  trash: TrashService;
  /** Run on shutdown, in reverse order of registration (watchers, workers). */
  closers: Array<() => Promise<void>>;
  /** Upload-only (drop) share links: uploads and their counters. */
  drops: DropService;
  /** Per-user quotas: usage of a scope and the room check every write path makes. */
  quotas: QuotaService;
  /** The audit log: `record` queues an entry (docs/audit.md). */
  audit: AuditLog;
  /** Live listings: who watches which folder (fm's events and the index's watcher feed it). */
  live: LiveFolders;
}

/** fm's cache folder (previews, the search index snapshot): `<dataDir>/cache`. */
export function cacheDirOf(options: ServiceOptions): string {
  return path.resolve(options.cacheDir ?? path.join(options.dataDir, 'cache'));
}

export async function shutdownServices(services: Services): Promise<void> {
  for (const close of [...services.closers].reverse()) {
    try {
      await close();
    } catch (err) {
      services.log.error(`shutdown: ${(err as Error).message}`);
    }
  }
}

/** The key that seals two-factor secrets: its own file in the data folder, never in the database. */
export const secretKeyFile = (options: ServiceOptions) => path.resolve(options.dataDir, 'secrets.key');

export function createServices(db: Database, options: ServiceOptions): Services {
  const repos = createRepos(db);
  const users = new UserService(repos, options.root);
  // fm's own files are never reachable, even when they sit inside the root.
  const dbFile = db.engine === 'sqlite' ? db.file : path.join(db.dataDir, 'fm.db');
  // Only fm's own entries are protected, not the whole data folder: a root may well sit inside it.
  const gate = new Gate(
    options.root,
    [cacheDirOf(options), secretKeyFile(options), dbFile, `${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`].map((p) => path.resolve(p)),
  );
  const events = new FileEvents(options.log);
  const live = new LiveFolders();
  live.attach(events);
  const exec = new ExecService(gate, options.log, { ...DEFAULT_LIMITS, ...options.exec }, new Sandbox(options.sandbox));
  const searchIndex = new SearchIndex({
    root: options.root,
    dataDir: path.join(cacheDirOf(options), 'index'),
    skipPaths: () => gate.protectedList,
    log: options.log,
    onDiskEvent: (abs, type, lossy) => live.diskChanged(abs, type, lossy),
  });
  events.on('written', (e) => searchIndex.written(e.abs));
  events.on('removed', (e) => searchIndex.removed(e.abs));
  events.on('moved', (e) => searchIndex.moved(e.fromAbs, e.toAbs));
  if (db.cluster) followOtherInstances(db.cluster, events, searchIndex, live);
  const previews = createPreviews(gate, events, options);
  const shares = new ShareService(repos, gate, options.log);
  const accessTokens = new AccessTokenService(repos);
  const totp = new TotpService(repos, secretKeyFile(options));
  shares.attach(events);
  const closers: Services['closers'] = [() => exec.closeAll(), () => previews.close()];
  const hooks = new ExecHookRunner(repos, gate, exec, options.log);
  const quotas = new QuotaService(options.root, new FolderUsage({ index: searchIndex, skip: (abs) => gate.isProtected(abs), events }));
  const trash = new TrashService({ gate, hooks, events, repos, log: options.log, treeUsage: (abs) => searchIndex.treeUsage(abs), quotas });
  closers.push(() => trash.close());
  const validateSettings: Services['validateSettings'] = (next, current, opts) => validateExecSettings(next, current, opts, exec.sandbox);
  const services: Services = {
    settings: new SettingsService({ repos, validateSettings }),
    gate,
    events,
    searchIndex,
    previews,
    search: createSearchService(gate, searchIndex),
    hooks,
    exec,
    validateSettings,
    shares,
    onUserDeleted: async (user) => {
      await shares.userDeleted(user);
      await accessTokens.userDeleted(user);
      await totp.disable(user.id);
      await trash.userDeleted(user);
    },
    uploads: createUploads(options, gate, closers, () => services, db.cluster),
    davLocks: createDavLocks(events, repos.deadProps),
    repos,
    tokens: new TokenService(repos, options.tokenLifetime, async (user) => {
      const settings = await repos.settings.get();
      // Only the json method asks for codes; under the others there is nothing to enrol for.
      return totp.state(user, services.auth.method(settings) === 'json' ? settings.totpRequired : 'none');
    }),
    accessTokens,
    totp,
    auth: new AuthService(repos, users, options.auth, options.log, exec, totp),
    oidc: new OidcService(repos, users, options.log),
    users,
    options,
    log: options.log,
    closers,
    trash,
    drops: new DropService(repos, () => services),
    quotas,
    audit: createAuditLog(repos, options.log, closers),
    live,
  };
  return services;
}

/** The audit log, flushed first thing at shutdown (closers run in reverse order). */
function createAuditLog(repos: Repos, log: Logger, closers: Services['closers']): AuditLog {
  const audit = new AuditLog(repos.audit, { retention: async () => (await repos.settings.get()).auditRetention, log });
  closers.push(() => audit.close());
  return audit;
}

/**
 * Follows changes made beside fm: the search index builds in the background and its tree watcher
 * feeds live listings; without it (`--no-index`) live listings watch the folders they follow.
 */
export function followTheDisk(services: Services, index: boolean): void {
  if (!index) {
    services.live.watchFoldersWith(watchFolderEntries);
    return;
  }
  void services.searchIndex.start();
  services.closers.push(() => services.searchIndex.close());
}

/**
 * Several instances on one root: each index, and each instance's live listings, also follow the
 * writes made through the others (a shared file system's watcher may not see another host's).
 */
function followOtherInstances(cluster: Cluster, events: FileEvents, searchIndex: SearchIndex, live: LiveFolders): void {
  events.on('written', (e) => cluster.announceFiles({ kind: 'written', abs: e.abs }));
  events.on('removed', (e) => cluster.announceFiles({ kind: 'removed', abs: e.abs }));
  events.on('moved', (e) => cluster.announceFiles({ kind: 'moved', abs: e.fromAbs, toAbs: e.toAbs }));
  cluster.onFiles((change) => {
    if (change.kind === 'written') {
      searchIndex.written(change.abs);
      live.diskChanged(change.abs, 'update', false);
    } else if (change.kind === 'removed') {
      searchIndex.removed(change.abs);
      live.diskChanged(change.abs, 'delete', false);
    } else if (change.toAbs) {
      searchIndex.moved(change.abs, change.toAbs);
      live.diskChanged(change.abs, 'delete', false);
      live.diskChanged(change.toAbs, 'update', false);
    }
  });
}

function createPreviews(gate: Gate, events: FileEvents, options: ServiceOptions): PreviewService {
  const cacheDir = path.join(cacheDirOf(options), 'previews');
  gate.protect(cacheDir);
  const previews = new PreviewService({ root: options.root, cacheDir, log: options.log });
  previews.listen(events);
  return previews;
}
