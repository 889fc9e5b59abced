/** The settings record and the JWT signing key. */
import crypto from 'node:crypto';
import { type Database, memoOf } from '../db.ts';
import { normalizeCommands, type Settings } from '../../api/settings.ts';
import { SettingsSchema } from '../../schemas/settings.ts';
import { PARSE_ONCE } from '../../schemas/parse-once.ts';

export class SettingsRepo {
  /** The last settings parsed, with the memo generation they were read in (read on every request). */
  private parsed?: { generation: number; settings: Settings };

  constructor(private readonly db: Database) {}

  private get kv() {
    return this.db.ns('settings');
  }

  /**
   * The stored settings with defaults filled in, or undefined before the first start. Parsed
   * once per memo generation (any write, or a change seen by the database refresh, starts a
   * new one); every caller gets its own copy.
   */
  async load(): Promise<Settings | undefined> {
    const memo = memoOf(this.kv);
    const generation = memo?.generation;
    if (this.parsed && this.parsed.generation === generation) return structuredClone(this.parsed.settings);
    const raw = await this.kv.get<unknown>('settings');
    if (raw === undefined) return undefined;
    const settings = normalize(SettingsSchema.parse(raw, PARSE_ONCE));
    if (memo && generation !== undefined && memo.generation === generation) this.parsed = { generation, settings: structuredClone(settings) };
    return settings;
  }

  /** The stored settings; throws when the instance was never initialised. */
  async get(): Promise<Settings> {
    const s = await this.load();
    if (!s) throw new Error('settings are missing: the database was never initialised');
    return s;
  }

  async save(settings: Settings): Promise<Settings> {
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
