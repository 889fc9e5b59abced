/**
 * The two-factor login (TOTP) contract shared by the server, the CLI and the web UI: types and
 * constants only. The zod schemas are in src/schemas/totp.ts.
 */
import type { Permissions } from './user.ts';

/** Who must use two-factor login: nobody, admins, or everyone (`settings.totpRequired`). */
export const TOTP_POLICIES = ['none', 'admins', 'all'] as const;
export type TotpPolicy = (typeof TOTP_POLICIES)[number];

/** The response header of a login that needs a code: `X-FM-OTP: required`. */
export const OTP_HEADER = 'X-FM-OTP';

/** How many one-time recovery codes an enrolment hands out. */
export const RECOVERY_CODE_COUNT = 10;

/** POST /api/users/{id}/totp: the pending secret (base32) and its otpauth:// URI for a QR code. */
export interface TotpEnrolment {
  secret: string;
  uri: string;
}

/** PUT /api/users/{id}/totp: the recovery codes, shown this once. */
export interface TotpConfirmation {
  recoveryCodes: string[];
}

/** The two-factor state carried in the session's `user` claim, for the UI. */
export interface TwoFactorState {
  /** The user has confirmed two-factor login. */
  enabled: boolean;
  /** The policy asks this user for two-factor login and they have none yet: lead them to enrol. */
  required: boolean;
}

/** Whether the policy applies to a user with these permissions. */
export function totpPolicyApplies(policy: TotpPolicy, perm: Pick<Permissions, 'admin'>): boolean {
  return policy === 'all' || (policy === 'admins' && perm.admin);
}
