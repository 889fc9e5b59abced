/** The dependencies every service and route shares, built once per server or CLI run. */
import type { Database } from '../storage/db.ts';
import { SettingsRepo } from '../storage/repos/settings.ts';
import { UsersRepo } from '../storage/repos/users.ts';
import { SessionsRepo } from '../storage/repos/sessions.ts';
import { SharesRepo } from '../storage/repos/shares.ts';
import { AccessTokensRepo } from '../storage/repos/access-tokens.ts';
import { DeadPropsRepo } from '../storage/repos/dead-props.ts';
import { TotpRepo } from '../storage/repos/totp.ts';
import { AuditRepo } from '../storage/repos/audit.ts';

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export interface Repos {
  db: Database;
  settings: SettingsRepo;
  users: UsersRepo;
  sessions: SessionsRepo;
  shares: SharesRepo;
  accessTokens: AccessTokensRepo;
  /** WebDAV dead properties, per file. */
  deadProps: DeadPropsRepo;
  totp: TotpRepo;
  /** The audit log's table (SQL, not Keyv). */
  audit: AuditRepo;
}

export function createRepos(db: Database): Repos {
  return {
    db,
    settings: new SettingsRepo(db),
    users: new UsersRepo(db),
    sessions: new SessionsRepo(db),
    shares: new SharesRepo(db),
    accessTokens: new AccessTokensRepo(db),
    deadProps: new DeadPropsRepo(db),
    totp: new TotpRepo(db),
    audit: new AuditRepo(db),
  };
}
