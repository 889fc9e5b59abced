/** The settings record and the JWT signing key. */
import crypto from 'node:crypto';
import type { Database } from '../db.ts';
import { memoOf } from '../read-memo.ts';
import { type DeepReadonly, normalizeCommands, type Settings, type SharedSettings } from '../../api/settings.ts';
import { SettingsSchema } from '../../schemas/settings.ts';
import { PARSE_ONCE } from '../../schemas/parse-once.ts';

export class SettingsRepo {
  /** The last settings parsed, frozen, with the memo generation they were read in (read on every request). */
  private parsed?: { generation: number; settings: SharedSettings };

  constructor(private readonly db: Database) {}

  private get kv() {
    return this.db.ns('settings');
  }

  /**
   * The stored settings with defaults filled in, or undefined before the first start: one
   * deeply frozen object shared by every caller, parsed once per memo generation (any write, or
   * a change seen by the database refresh, starts a new one). Callers that change settings
   * start from `editable()`.
   */
  async load(): Promise<SharedSettings | undefined> {
    const memo = memoOf(this.kv);
    const generation = memo?.generation;
    if (this.parsed && this.parsed.generation === generation) return this.parsed.settings;
    const raw = await this.kv.get<unknown>('settings');
    if (raw === undefined) return undefined;
    const settings = deepFreeze(normalize(SettingsSchema.parse(raw, PARSE_ONCE)));
    if (memo && generation !== undefined && memo.generation === generation) this.parsed = { generation, settings };
    return settings;
  }

  /** The stored settings; throws when the instance was never initialised. */
  async get(): Promise<SharedSettings> {
    const s = await this.load();
    if (!s) throw new Error('settings are missing: the database was never initialised');
    return s;
  }

  /** A copy of the stored settings of the caller's own, to change and save. */
  async editable(): Promise<Settings> {
    // structuredClone keeps the readonly type, but its copy is new and not frozen.
    return structuredClone(await this.get()) as Settings;
  }

  async save(settings: SharedSettings): Promise<Settings> {
    const clean = normalize(SettingsSchema.parse(settings, PARSE_ONCE));
    await this.kv.set('settings', clean);
    return clean;
  }

  /** The HS256 key, created on first use (64 random bytes, as filebrowser). */
  async signingKey(): Promise<Buffer> {
    const stored = await this.kv.get<string>('key');
    if (stored) return Buffer.from(stored, 'base64');
    const key = crypto.randomBytes(64);
    await this.kv.set('key', key.toString('base64'));
    return key;
  }

  async setSigningKey(key: Buffer): Promise<void> {
    await this.kv.set('key', key.toString('base64'));
  }
}

function normalize(s: Settings): Settings {
  return {
    ...s,
    defaults: { ...s.defaults, locale: s.defaults.locale || 'en', viewMode: s.defaults.viewMode || 'list' },
    commands: normalizeCommands(s.commands),
  };
}

/** Freezes a parsed record and everything in it (plain objects and arrays only), so a caller changing the shared settings fails loudly. */
function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value as DeepReadonly<T>;
}
