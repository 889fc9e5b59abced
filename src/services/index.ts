/** Builds every service from the database and the server options (one composition root). */
import type { Database } from '../storage/db.ts';
import { createRepos, type Logger, type Repos } from './context.ts';
import { TokenService } from './tokens.ts';
import { AuthService, type AuthOptions } from './auth.ts';
import { UserService } from './users.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Settings } from '../api/settings.ts';
import type { AllowlistOptions } from './settings.ts';

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
}

export interface Services {
  repos: Repos;
  tokens: TokenService;
  auth: AuthService;
  users: UserService;
  options: ServiceOptions;
  log: Logger;
  /** Called after a user is deleted (shares and other per-user data are cleaned up here). */
  onUserDeleted?: (user: UserRecord) => Promise<void>;
  /**
   * Extra checks on new settings (e.g. the exec allowlist); throws an FmError to refuse.
   * Called by saveSettings (services/settings.ts) for the API and the CLI alike.
   */
  validateSettings?: (next: Settings, current: Settings, options?: AllowlistOptions) => Promise<void>;
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
  return {
    repos,
    tokens: new TokenService(repos, options.tokenLifetime),
    auth: new AuthService(repos, users, options.auth, options.log),
    users,
    options,
    log: options.log,
    closers: [],
  };
}
