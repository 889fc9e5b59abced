/** Builds every service from the database and the server options (one composition root). */
import type { Database } from '../storage/db.ts';
import { createRepos, type Logger, type Repos } from './context.ts';
import { TokenService } from './tokens.ts';
import { AuthService, type AuthOptions } from './auth.ts';
import { UserService } from './users.ts';
import { Gate } from './files/gate.ts';
import { FileEvents } from './events.ts';
import { SearchIndex } from './indexer/index.ts';
import type { HookRunner } from './hooks.ts';
import path from 'node:path';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Settings } from '../api/settings.ts';
import { createUploads, type UploadService } from './uploads/index.ts';

export interface ServiceOptions {
  /** Absolute, real path of the folder fm serves. */
  root: string;
  /** Token lifetime in seconds. */
  tokenLifetime: number;
  auth: AuthOptions;
  log: Logger;
  /** fm's own data folder (the database's folder): caches and upload staging live here. */
  dataDir: string;
}

export interface Services {
  repos: Repos;
  tokens: TokenService;
  auth: AuthService;
  users: UserService;
  /** The one path gate every file-touching route goes through. */
  gate: Gate;
  /** What changed on disk (shares, the search index and caches listen). */
  events: FileEvents;
  /** The live search index of the root (started by `fm serve`; queries fall back to a walk until ready). */
  searchIndex: SearchIndex;
  /** Event hooks around file operations (the exec module installs the real runner). */
  hooks: HookRunner;
  /** Resumable uploads (tus). */
  uploads: UploadService;
  options: ServiceOptions;
  log: Logger;
  /** Called after a user is deleted (shares and other per-user data are cleaned up here). */
  onUserDeleted?: (user: UserRecord) => Promise<void>;
  /** Extra checks on new settings (e.g. the exec allowlist); throws an FmError to refuse. */
  validateSettings?: (next: Settings, current: Settings) => Promise<void>;
  /** Run on shutdown, in reverse order of registration (watchers, workers). */
  closers: Array<() => Promise<void>>;
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

export function createServices(db: Database, options: ServiceOptions): Services {
  const repos = createRepos(db);
  const users = new UserService(repos, options.root);
  // fm's own files are never reachable, even when they sit inside the root.
  const dbFile = db.file;
  const gate = new Gate(options.root, [options.dataDir, dbFile, `${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`].map((p) => path.resolve(p)));
  const events = new FileEvents(options.log);
  const searchIndex = new SearchIndex({ root: options.root, dataDir: options.dataDir, skip: (abs) => gate.isProtected(abs), log: options.log });
  events.on('written', (e) => searchIndex.written(e.abs));
  events.on('removed', (e) => searchIndex.removed(e.abs));
  events.on('moved', (e) => searchIndex.moved(e.fromAbs, e.toAbs));
  const closers: Services['closers'] = [];
  const services: Services = {
    gate,
    events,
    searchIndex,
    hooks: { around: (_ctx, operation) => operation() },
    uploads: createUploads(options, gate, closers, () => services),
    repos,
    tokens: new TokenService(repos, options.tokenLifetime),
    auth: new AuthService(repos, users, options.auth, options.log),
    users,
    options,
    log: options.log,
    closers,
  };
  return services;
}
