/**
 * Where option values come from: flag > environment (`FM_<NAME>`) > config file (`--config`,
 * YAML or JSON) > database > default. Commander reads the flags; this module fills every
 * option the command line left out from the environment, then from the file. Options that
 * stay unset fall back to the database value (the command decides) or the built-in default.
 */
import fs from 'node:fs';
import type { Command, Option } from 'commander';
import { UsageError } from '../errors.ts';

/** Option values as read from a config file: flattened, keys normalised (see normKey). */
export type FileValues = Map<string, unknown>;

/** Sources recorded by commander that count as "the user gave this option". */
const GIVEN = new Set(['cli', 'env', 'config']);

/** `FM_` plus the option's name in UPPER_SNAKE case: `--tus-chunk-size` → `FM_TUS_CHUNK_SIZE`. */
export function envName(option: Option): string {
  return `FM_${option
    .attributeName()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;
}

/** Lower-case, without `-`, `_` or `.`: `tus-chunk-size`, `tusChunkSize` and `tus.chunkSize` are one key. */
export function normKey(key: string): string {
  return key.toLowerCase().replace(/[-_.]/g, '');
}

/** Reads a config file (YAML, of which JSON is a subset) into flattened option values. */
export async function loadConfigFile(file: string): Promise<FileValues> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const { parse: parseYaml } = await import('yaml');
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new UsageError(`config file ${file} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return new Map();
  if (typeof data !== 'object' || Array.isArray(data)) throw new UsageError(`config file ${file} must hold a mapping of option names to values`);
  const out: FileValues = new Map();
  flatten(data as Record<string, unknown>, '', out);
  return out;
}

function flatten(obj: Record<string, unknown>, prefix: string, out: FileValues): void {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix + normKey(k);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, key, out);
    else if (v !== null && v !== undefined) out.set(key, v);
  }
}

/** Parses a boolean from the environment or a file: true/false, 1/0, yes/no, on/off. */
export function parseBool(raw: unknown, where: string): boolean {
  if (typeof raw === 'boolean') return raw;
  const s = String(raw).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
  throw new UsageError(`${where}: expected true or false, got "${String(raw)}"`);
}

interface Attribute {
  name: string;
  positive?: Option;
  negative?: Option;
}

function attributes(cmd: Command): Attribute[] {
  const byName = new Map<string, Attribute>();
  for (const opt of cmd.options) {
    if (opt.long === '--help' || opt.long === '--version' || opt.long === '--config') continue;
    const name = opt.attributeName();
    const a = byName.get(name) ?? { name };
    if (opt.negate) a.negative = opt;
    else a.positive = opt;
    byName.set(name, a);
  }
  return [...byName.values()];
}

function isBoolean(a: Attribute): boolean {
  const o = a.positive ?? a.negative!;
  return !o.required && !o.optional;
}

/**
 * Fills the options of `cmd` and its ancestors that the command line did not set, first from
 * the environment, then from the config file. Booleans from the environment are parsed
 * (FM_EXEC=false means false, unlike commander's "set means true").
 */
export function applyLayers(cmd: Command, env: NodeJS.ProcessEnv, file: FileValues): void {
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const a of attributes(c)) {
      const source = c.getOptionValueSource(a.name);
      if (source === 'cli') continue;
      const main = a.positive ?? a.negative!;
      const envVar = main.envVar ?? envName(main);
      const fromEnv = env[envVar];
      if (isBoolean(a)) {
        if (fromEnv !== undefined) {
          c.setOptionValueWithSource(a.name, parseBool(fromEnv, envVar), 'env');
          continue;
        }
        const v = fileBool(a, file);
        if (v !== undefined) c.setOptionValueWithSource(a.name, v, 'config');
        continue;
      }
      if (source === 'env') continue; // commander parsed it, with its own checks
      if (fromEnv !== undefined) {
        c.setOptionValueWithSource(a.name, parseValue(main, fromEnv, envVar, c.getOptionValue(a.name)), 'env');
        continue;
      }
      const key = normKey(a.name);
      if (file.has(key)) {
        const raw = file.get(key);
        if (main.optional && typeof raw === 'boolean') {
          if (raw) c.setOptionValueWithSource(a.name, true, 'config');
          continue;
        }
        const text = Array.isArray(raw) ? raw.map(String).join(',') : String(raw);
        c.setOptionValueWithSource(a.name, parseValue(main, text, `config file key "${main.long!.slice(2)}"`, undefined), 'config');
      }
    }
  }
}

function fileBool(a: Attribute, file: FileValues): boolean | undefined {
  const pos = file.get(normKey(a.name));
  const where = `config file key "${(a.positive ?? a.negative)!.long!.slice(2)}"`;
  if (pos !== undefined) return parseBool(pos, where);
  if (a.negative) {
    const neg = file.get(normKey(a.negative.long!.slice(2)));
    if (neg !== undefined) return !parseBool(neg, where);
  }
  return undefined;
}

function parseValue(opt: Option, raw: string, where: string, previous: unknown): unknown {
  if (!opt.parseArg) return raw;
  try {
    return opt.parseArg(raw, previous);
  } catch (err) {
    throw new UsageError(`${where}: invalid value "${raw}": ${(err as Error).message.replace(/^error: /, '')}`);
  }
}

/** Whether the user set an option by flag, environment or config file (not a default). */
export function isGiven(cmd: Command, attribute: string): boolean {
  return GIVEN.has(cmd.getOptionValueSource(attribute) ?? '');
}
