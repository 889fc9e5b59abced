/**
 * Two-factor login with time-based one-time codes (RFC 6238: SHA-1, 6 digits, 30 s), through
 * the otpauth library. Enrolment is pending until confirmed with a valid code; confirming hands
 * out ten one-time recovery codes. A code is accepted one step either side of now, and never for
 * a time step at or before the last one accepted (no replay).
 */
import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { RECOVERY_CODE_COUNT, type TotpConfirmation, type TotpEnrolment, type TotpPolicy, type TwoFactorState, totpPolicyApplies } from '../api/totp.ts';
import { BadRequestError, ConflictError, ForbiddenError, type FmError, OtpRequiredError } from '../errors.ts';
import { nowSeconds } from '../storage/repos/access-tokens.ts';
import type { TotpRecord } from '../storage/repos/totp.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Repos } from './context.ts';
import { loadOrCreateKey, open, seal } from '../storage/secret-box.ts';

export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now: a phone's clock a little off, or a code typed as it changed. */
const TOTP_WINDOW = 1;
/** 20 bytes: the size of SHA-1's output, as RFC 4226 recommends. */
const SECRET_BYTES = 20;
/** Recovery codes: 10 characters of an alphabet without 0/o, 1/l/i (50 bits), shown as `xxxxx-xxxxx`. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_LENGTH = 10;

/** An RFC 6238 generator for `secret`. */
export function makeTotp(secret: Secret, opts: { digits?: number; label?: string; issuer?: string } = {}): TOTP {
  return new TOTP({ secret, digits: opts.digits ?? TOTP_DIGITS, period: TOTP_PERIOD, algorithm: 'SHA1', label: opts.label, issuer: opts.issuer });
}

/** The time step of a moment (epoch milliseconds). */
export const stepOf = (ms: number) => Math.floor(ms / 1000 / TOTP_PERIOD);

/**
 * Checks a code at `now` (epoch ms): the step it belongs to when valid and later than
 * `lastStep`; 'replayed' for a valid code of a step already used; 'wrong' otherwise.
 */
export function checkCode(totp: TOTP, code: string, lastStep: number, now: number): { step: number } | 'wrong' | 'replayed' {
  if (!new RegExp(`^\\d{${totp.digits}}$`).test(code)) return 'wrong';
  const delta = totp.validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return 'wrong';
  const step = stepOf(now) + delta;
  return step > lastStep ? { step } : 'replayed';
}

/** A recovery code as typed, reduced to its characters (case, dashes and spaces do not matter). */
const normalizeRecovery = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

function newRecoveryCode(): string {
  let s = '';
  for (let i = 0; i < RECOVERY_LENGTH; i++) s += RECOVERY_ALPHABET[crypto.randomInt(RECOVERY_ALPHABET.length)];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

export type OtpCheck = 'ok' | 'wrong' | 'replayed';
/** A login's second factor: passed (or not asked for), not given, or refused. */
export type SecondFactor = OtpCheck | 'missing';

/** The error a login answers for a second factor that did not pass. */
export function secondFactorError(result: Exclude<SecondFactor, 'ok'>): FmError {
  if (result === 'missing') return new OtpRequiredError();
  return new ForbiddenError(result === 'replayed' ? 'this two-factor code was already used: wait for the next one' : 'wrong two-factor code', 'otp_invalid');
}

export class TotpService {
  private key?: Buffer;
  /** Verifications run one at a time, so that two logins racing with one code cannot both pass. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repos: Repos,
    /** The key file (in fm's data folder), read or made on first use. */
    private readonly keyFile: string,
  ) {}

  private secretKey(): Buffer {
    this.key ??= loadOrCreateKey(this.keyFile);
    return this.key;
  }

  /** Recovery codes are hashed with the key too: 50 bits would not resist a search over a copied database alone. */
  private recoveryHash(userID: number, code: string): string {
    return crypto
      .createHmac('sha256', this.secretKey())
      .update(`recovery:${userID}:${normalizeRecovery(code)}`)
      .digest('hex');
  }

  private totpOf(record: TotpRecord): TOTP {
    return makeTotp(Secret.fromBase32(open(this.secretKey(), record.secret, String(record.userID))));
  }

  /** Whether the user has confirmed two-factor login. */
  async enabled(userID: number): Promise<boolean> {
    return (await this.repos.totp.get(userID))?.confirmed === true;
  }

  /** What the UI needs to know about a user's two-factor login under `policy`. */
  async state(user: UserRecord, policy: TotpPolicy): Promise<TwoFactorState> {
    const enabled = await this.enabled(user.id);
    return { enabled, required: !enabled && totpPolicyApplies(policy, user.perm) };
  }

  /** Starts (or restarts) an enrolment with a new secret; 409 when two-factor login is already on. */
  async start(user: UserRecord, issuer: string): Promise<TotpEnrolment> {
    if (await this.enabled(user.id)) throw new ConflictError('two-factor login is already on: turn it off first to enrol again');
    const secret = new Secret({ size: SECRET_BYTES });
    await this.repos.totp.set({
      userID: user.id,
      secret: seal(this.secretKey(), secret.base32, String(user.id)),
      confirmed: false,
      recoveryHashes: [],
      lastStep: 0,
      created: nowSeconds(),
    });
    return { secret: secret.base32, uri: makeTotp(secret, { label: user.username, issuer }).toString() };
  }

  /** Confirms a pending enrolment with a current code; answers the recovery codes (their only copy). */
  async confirm(user: UserRecord, code: string): Promise<TotpConfirmation> {
    return this.serial(async () => {
      const record = await this.repos.totp.get(user.id);
      if (!record || record.confirmed) {
        throw new ConflictError(record ? 'two-factor login is already on' : 'no enrolment is pending: start one with POST first');
      }
      const result = checkCode(this.totpOf(record), code.replace(/\s/g, ''), record.lastStep, Date.now());
      if (typeof result === 'string') throw new BadRequestError('code: wrong or expired code; enter the code your app shows now', 'invalid_input');
      const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      await this.repos.totp.set({
        ...record,
        confirmed: true,
        lastStep: result.step,
        recoveryHashes: recoveryCodes.map((c) => this.recoveryHash(user.id, c)),
      });
      return { recoveryCodes };
    });
  }

  /** Turns two-factor login off (or drops a pending enrolment); true when there was something. */
  async disable(userID: number): Promise<boolean> {
    return this.repos.totp.delete(userID);
  }

  /**
   * Checks a login's second factor: a current code (each time step once) or an unused recovery
   * code (which is then used up). Only for a user with two-factor login on.
   */
  async verify(userID: number, otp: string): Promise<OtpCheck> {
    return this.serial(async () => {
      const record = await this.repos.totp.get(userID);
      if (!record?.confirmed) return 'wrong';
      const code = otp.replace(/\s/g, '');
      // Six digits are a code; anything else is tried as a recovery code (which may, rarely, be all digits).
      if (new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code)) {
        const result = checkCode(this.totpOf(record), code, record.lastStep, Date.now());
        if (typeof result === 'string') return result;
        await this.repos.totp.set({ ...record, lastStep: result.step });
        return 'ok';
      }
      const hash = this.recoveryHash(userID, code);
      const rest = record.recoveryHashes.filter((h) => !crypto.timingSafeEqual(Buffer.from(h), Buffer.from(hash)));
      if (rest.length === record.recoveryHashes.length) return 'wrong';
      await this.repos.totp.set({ ...record, recoveryHashes: rest });
      return 'ok';
    });
  }

  /** A login's second factor for a user whose password was right: 'ok' when two-factor login is off. */
  async secondFactor(userID: number, otp: string | undefined): Promise<SecondFactor> {
    if (!(await this.enabled(userID))) return 'ok';
    return otp ? this.verify(userID, otp) : 'missing';
  }

  /** How many recovery codes are left. */
  async recoveryLeft(userID: number): Promise<number> {
    return (await this.repos.totp.get(userID))?.recoveryHashes.length ?? 0;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
