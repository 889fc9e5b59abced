/**
 * Turns a command line into what actually runs, checking every program, argument and
 * redirection on the way:
 * - without a configured shell, a line is exactly one program and its arguments (argv, no shell);
 * - with one, fm writes the shell script itself from the parsed line: every program replaced by
 *   its absolute path (no builtins, functions or PATH tricks), every word single-quoted, every
 *   redirection target replaced by the absolute path the gate resolved. The shell only ever sees
 *   `;`, `&&`, `||`, `|` and those redirections, so it cannot read the line differently from fm.
 */
import { isExecutable, lstat, realPath, stat } from '../files/disk/lookup.ts';
import path from 'node:path';
import { FmError } from '../../errors.ts';
import type { Access, Gate } from '../files/gate.ts';
import { isWithin, joinVirtual } from '../files/paths.ts';
import { crossCheck } from './crosscheck.ts';
import { SAFE_PATH } from './process.ts';
import { CommandRefusedError, commandsOf, parseSubset, type Redirect, type SimpleCommand, type Word } from './syntax.ts';

export interface PlanOptions {
  /** `run`: a user's command (allowlist and argument checks); `hook`: an admin's event hook. */
  purpose: 'run' | 'hook';
  /** settings.shell (empty: no shell). */
  shell: readonly string[];
  /** The user's allowed programs (runs only). */
  allowlist?: readonly string[];
  gate: Gate;
  access: Access;
  /** Virtual path (inside `access`) of the working folder. */
  cwdVirtual: string;
  /** Absolute real path of the working folder. */
  cwd: string;
}

export interface Plan {
  file: string;
  args: string[];
  argv0: string;
  cwd: string;
  /** A hook line ending in `&`: started without waiting for it. */
  background: boolean;
  /** The programs the line runs, by the names the user gave. */
  programs: string[];
  /** The absolute files the line runs (the shell included): a sandbox must show them. */
  files: string[];
}

function refuse(message: string): never {
  throw new CommandRefusedError(message);
}

/** Parses a line with both parsers (see syntax.ts and crosscheck.ts). */
export async function parseChecked(line: string) {
  const parsed = parseSubset(line.trim());
  await crossCheck(parsed);
  return parsed;
}

/**
 * Splits a line into argv without any shell: quotes and backslashes are honoured, and anything a
 * shell would expand or interpret (`;`, `|`, `$`, globs, ...) is refused. Used by the auth hook.
 */
export async function parseArgv(line: string): Promise<string[]> {
  const parsed = await parseChecked(line);
  const cmds = commandsOf(parsed);
  if (parsed.statements.length !== 1 || cmds.length !== 1 || cmds[0].redirects.length || parsed.statements[0].background) {
    refuse('one program and its arguments are expected here: no ;, &&, ||, |, & or redirections');
  }
  return cmds[0].words.map((w) => w.value);
}

/**
 * The checks that need no file system: both parsers, `&` only at the end of a hook, and one
 * program per line without a shell. Returns the parsed line and whether it ends in `&`.
 */
export async function checkLineShape(line: string, opts: Pick<PlanOptions, 'purpose' | 'shell'>) {
  const parsed = await parseChecked(line);
  const statements = parsed.statements;
  let background = false;
  statements.forEach((st, i) => {
    if (!st.background) return;
    if (opts.purpose === 'run') refuse('background jobs (&) are not supported; the command runs until it ends');
    if (i !== statements.length - 1) refuse('& is only allowed at the end of a hook line (run it in the background)');
    background = true;
  });
  const cmds = commandsOf(parsed);
  if (opts.shell.length === 0 && (cmds.length !== 1 || cmds[0].redirects.length > 0)) {
    refuse(
      'no shell is configured (settings.shell), so a line runs exactly one program: ' +
        'lists (;, &&, ||), pipes (|) and redirections (<, >) are not available',
    );
  }
  return { parsed, cmds, background };
}

/** Checks a line and returns what to spawn, or throws CommandRefusedError saying why not. */
export async function planCommand(line: string, opts: PlanOptions): Promise<Plan> {
  const { parsed, cmds, background } = await checkLineShape(line, opts);
  const statements = parsed.statements;
  const useShell = opts.shell.length > 0;

  const programs: string[] = [];
  const files: string[] = [];
  const rendered = new Map<SimpleCommand, string>();
  for (const cmd of cmds) {
    const name = cmd.words[0].value;
    if (opts.purpose === 'run' && !(opts.allowlist ?? []).includes(name)) refuse(`"${name}" is not in your allowed commands`);
    const file = await resolveProgram(name);
    programs.push(name);
    files.push(file);
    if (opts.purpose === 'run') for (const w of cmd.words.slice(1)) await checkArgument(w, opts);
    const redirs: string[] = [];
    for (const r of cmd.redirects) redirs.push(await renderRedirect(r, opts));
    if (!useShell) {
      return { file, args: cmd.words.slice(1).map((w) => w.value), argv0: name, cwd: opts.cwd, background, programs, files };
    }
    rendered.set(cmd, [quote(file), ...cmd.words.slice(1).map((w) => quote(w.value)), ...redirs].join(' '));
  }

  const script = statements
    .map((st) => {
      const pipes = st.pipelines.map((p) => p.commands.map((c) => rendered.get(c)!).join(' | '));
      return pipes.reduce((acc, p, i) => `${acc} ${st.ops[i - 1]} ${p}`);
    })
    .join('; ');
  const shellFile = await resolveProgram(opts.shell[0]);
  return { file: shellFile, args: [...opts.shell.slice(1), script], argv0: opts.shell[0], cwd: opts.cwd, background, programs, files: [...files, shellFile] };
}

/** Single-quotes a word for a POSIX shell. */
export function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The absolute path of a program: an absolute path as given, or a name found in SAFE_PATH. */
export async function resolveProgram(name: string): Promise<string> {
  if (name.includes('/')) {
    if (!path.isAbsolute(name)) refuse(`"${name}": give a program by name or by absolute path`);
    if (await isProgram(name)) return name;
    refuse(`command not found: ${name}`);
  }
  for (const dir of SAFE_PATH.split(':')) {
    const file = path.join(dir, name);
    if (await isProgram(file)) return file;
  }
  refuse(`command not found: ${name}`);
}

async function isProgram(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile() && isExecutable(file);
  } catch {
    return false;
  }
}

/**
 * An argument that names an existing path must be one the gate lets this user read (scope,
 * rules, hidden dotfiles, links leaving the scope, fm's own files); absolute paths are refused
 * outright. The path is followed the way the kernel will follow it (a link, then `..`), not
 * lexically, so `link/../x` cannot step out. See `pathCandidates` for where paths may hide.
 */
async function checkArgument(w: Word, opts: PlanOptions): Promise<void> {
  const candidates = pathCandidates(w.value);
  for (const c of candidates) {
    if (!c) continue;
    if (c.startsWith('/')) {
      refuse(`argument "${w.value}" is an absolute path: commands only reach paths inside your folder; name them relative to the current folder`);
    }
    const phys = await physicalPath(opts.cwd, c);
    const root = opts.access.rootReal;
    if (phys !== root && !phys.startsWith(`${root}/`)) refuse(`argument "${w.value}" leads outside your scope`);
    const exists = await lstat(phys).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    try {
      await opts.gate.resolve(opts.access, `/${path.relative(root, phys)}`, 'read');
    } catch (err) {
      if (err instanceof FmError) refuse(`argument "${w.value}": ${err.message}`);
      throw err;
    }
  }
}

/**
 * The paths an argument may name: the word itself; the value of `--opt=value` and of
 * `name=value` (dd's `if=`/`of=`); in a bundle of short options every rest that holds a `/` or
 * is `..`, since any letter of `-vt/abs` or `-uo/abs` may be the one that takes a value; and the
 * path of a `file:` URL.
 */
export function pathCandidates(word: string): string[] {
  const out = [word];
  const eq = word.indexOf('=');
  if (eq > 0 && (word.startsWith('-') || /^[A-Za-z_][\w.-]*=/.test(word))) out.push(word.slice(eq + 1));
  if (/^-[^-]/.test(word) && eq < 0) {
    for (let i = 2; i < word.length; i++) {
      const rest = word.slice(i);
      if (rest.includes('/') || rest === '..') out.push(rest);
    }
  }
  for (const c of [...out]) {
    const url = /^file:(?:\/\/[^/]*)?(\/.*)?$/i.exec(c);
    if (url) out.push(url[1] ?? '/');
  }
  return out;
}

/** Where `rel` leads from `dir` when the kernel resolves it: links are followed before `..`. */
async function physicalPath(dir: string, rel: string): Promise<string> {
  let cur = dir;
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, parts[i]);
    let st;
    try {
      st = await lstat(next);
    } catch {
      // Nothing there: the rest can only be resolved lexically.
      return path.resolve(next, ...parts.slice(i + 1));
    }
    cur = st.isSymbolicLink() ? await realPath(next).catch(() => next) : next;
  }
  return cur;
}

/** Resolves a redirection through the gate (inside the current folder) and renders it for the shell. */
async function renderRedirect(r: Redirect, opts: PlanOptions): Promise<string> {
  const t = r.target.value;
  if (r.op === '>&' || r.op === '<&') return `${r.fd ?? (r.op === '>&' ? 1 : 0)}${r.op}${t}`;
  const outside = `redirection to "${t}" is outside the current folder`;
  if (!t || t.startsWith('/')) refuse(outside);
  let virtual: string;
  try {
    virtual = joinVirtual(opts.cwdVirtual, t);
  } catch {
    refuse(outside);
  }
  if (virtual === opts.cwdVirtual || !isWithin(opts.cwdVirtual, virtual)) refuse(outside);
  try {
    if (r.op === '<') {
      const target = await opts.gate.resolve(opts.access, virtual, 'read');
      return `${r.fd ?? 0}<${quote(target.real)}`;
    }
    const existing = await opts.gate.resolve(opts.access, virtual, 'read', { mustExist: false });
    const target = await opts.gate.resolve(opts.access, virtual, existing.exists ? 'modify' : 'create', { mustExist: false });
    if (target.isDir) refuse(`redirection to "${t}": it is a folder`);
    const append = r.op === '>>' || r.op === '&>>';
    const op = append ? '>>' : '>';
    if (r.op === '&>' || r.op === '&>>') return `1${op}${quote(target.abs)} 2>&1`;
    return `${r.fd ?? 1}${op}${quote(target.abs)}`;
  } catch (err) {
    if (err instanceof CommandRefusedError) throw err;
    if (err instanceof FmError) refuse(`redirection to "${t}": ${err.message}`);
    throw err;
  }
}
