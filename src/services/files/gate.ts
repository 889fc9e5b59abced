/**
 * The gate: the one place that turns a request path into a file-system path. Every route
 * that touches files resolves through here. In order, it
 *   1. checks the operation's permission (before any file-system call),
 *   2. checks the rules (global, then user; hidden dotfiles) on the cleaned virtual path,
 *   3. confines the path to the access root, resolving symlinks and refusing any that leave it,
 *      and checks the rules on the real location too (for a missing target: its real parent
 *      plus its name),
 *   4. keeps fm's own files (database, caches, upload staging) out of reach.
 * Recursive operations check every descendant with `checkTree`.
 *
 * The gate decides; it does not write. Changes go through the folder handles it hands out
 * (`openParent`, disk/handle.ts), which pin the real folder the decision was about and check
 * the rules again on every entry they touch.
 */
import path from 'node:path';
import { ForbiddenError, NotFoundError } from '../../errors.ts';
import type { SharedSettings } from '../../api/settings.ts';
import type { PermissionName } from '../../api/user.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import { RuleSet } from './rules.ts';
import { cleanPath, isWithin } from './paths.ts';
import { cleanScope } from '../scope.ts';
import { readEntries } from './disk/dirents.ts';
import { DirHandle, isInside, type Scope } from './disk/handle.ts';
import { lstatOrMissingNow, makeFolders, realPath, realPathNow, realPathSync, stat, statSync } from './disk/lookup.ts';
import { PARTIAL_PREFIX, isPartialName, type PartialJournal } from './disk/partials.ts';
import type { Dirent, Stats } from './disk/types.ts';

/** Prefix of in-progress write files; never listed, archived or copied. */
export { PARTIAL_PREFIX } from './disk/partials.ts';

/** What a request wants to do with a path; each maps to a permission (or none for `read`). */
export type Op = 'read' | 'download' | 'create' | 'modify' | 'rename' | 'delete' | 'share' | 'execute';

const OP_PERMS: Record<Op, PermissionName[]> = {
  read: [],
  download: ['download'],
  create: ['create'],
  modify: ['modify'],
  rename: ['rename'],
  delete: ['delete'],
  share: ['share', 'download'],
  execute: ['execute'],
};

/** Ops that act on a directory entry itself, never following a final symlink. */
const ENTRY_OPS = new Set<Op>(['rename', 'delete']);
/** Ops that write file contents: a missing path is fine, and they never write through a dangling link. */
const WRITE_OPS = new Set<Op>(['create', 'modify']);

/** Who is acting and where "/" is. */
export interface Access {
  user: UserRecord;
  settings: SharedSettings;
  /** Absolute real path that the virtual "/" maps to (the scope, or a share's folder). */
  rootReal: string;
  /** Virtual path of `rootReal` inside the user's scope ("" for the scope itself); prefixed before rule checks. */
  rulePrefix: string;
  /**
   * Another scope path the same folder is reachable by (a share of a symlinked folder is rooted
   * at the real folder; the link's own path is kept here). Rules must allow both.
   */
  aliasPrefix?: string;
  rules: RuleSet;
  /** Where this access's folder handles may go (the gate builds it with the access). */
  scope: Scope;
}

/** A resolved path. `abs` is where the entry is; `real` is where its contents are. */
export interface Target {
  access: Access;
  /** Virtual path relative to the access root ("/" is the root). */
  virtual: string;
  /** Virtual path inside the user's scope, as rules see it. */
  scopePath: string;
  /** Absolute path of the entry (parent resolved, final component as named). */
  abs: string;
  /** Absolute real path of the contents (symlinks followed); equals abs when not a link or missing. */
  real: string;
  exists: boolean;
  /** lstat of the entry (undefined when missing). */
  lstat?: Stats;
  /** stat of the contents (undefined when missing or a dangling link). */
  stat?: Stats;
  isSymlink: boolean;
  isDir: boolean;
}

export interface ResolveOptions {
  /** The access root itself is acceptable (false for delete/rename/copy sources). */
  allowRoot?: boolean;
  /** The path must exist (404 otherwise). Default true for read-like ops. */
  mustExist?: boolean;
}

export interface OpenParentOptions {
  /** Open the parent of the entry itself (`abs`: delete, move) rather than of its contents (`real`: writes, copies). */
  entry?: boolean;
  /** Create missing parent folders with this mode (never through a symlink). */
  create?: number;
}

export class Gate {
  private readonly protectedPaths: string[] = [];
  /** Journal of temporary files (set by the upload service of a serving instance). */
  partials?: PartialJournal;
  /** `protectedPaths[i] + '/'`, built once (isProtected runs per entry in tree walks). */
  private readonly protectedPrefixes: string[] = [];

  constructor(
    /** Absolute real path of the server root. */
    readonly root: string,
    protectedPaths: string[],
  ) {
    for (const p of protectedPaths) this.protect(p);
  }

  /**
   * Adds a path fm owns (the database, a cache or staging folder). A path that is the root or
   * one of its ancestors (a data folder holding the root, a database folder served as the root)
   * cannot be hidden wholesale without hiding every file: it is ignored, and the files and
   * folders fm keeps inside it must be protected one by one.
   */
  protect(p: string): void {
    const real = realOrSelf(p);
    if (isWithinReal(real, this.root)) return;
    if (!this.protectedPaths.includes(real)) {
      this.protectedPaths.push(real);
      this.protectedPrefixes.push(`${real}/`);
    }
  }

  /** fm's own files and folders (real paths), e.g. for a sandbox to mask them. */
  get protectedList(): readonly string[] {
    return this.protectedPaths;
  }

  isProtected(absReal: string): boolean {
    for (let i = 0; i < this.protectedPaths.length; i++) {
      if (absReal === this.protectedPaths[i] || absReal.startsWith(this.protectedPrefixes[i])) return true;
    }
    return false;
  }

  /**
   * Names of fm's own files directly inside a folder (listings test names against this set
   * instead of calling isProtected per entry). The folder itself is not protected: the gate
   * refused it earlier.
   */
  protectedNamesIn(dirReal: string): Set<string> {
    const names = new Set<string>();
    for (const p of this.protectedPaths) if (path.dirname(p) === dirReal) names.add(path.basename(p));
    return names;
  }

  /** The access of a signed-in user on their scope (created when the instance makes home folders). */
  async access(user: UserRecord, settings: SharedSettings): Promise<Access> {
    const scope = cleanScope(user.scope || '.');
    const scopeAbs = path.join(this.root, scope);
    let rootReal: string;
    try {
      rootReal = realPathNow(scopeAbs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !settings.createUserDir) {
        throw new NotFoundError('your scope folder does not exist');
      }
      await makeFolders(scopeAbs, settings.dirMode);
      rootReal = await realPath(scopeAbs);
    }
    if (!isWithinReal(this.root, rootReal)) throw new ForbiddenError('your scope leaves the server root');
    return this.withScope({ user, settings, rootReal, rulePrefix: '', rules: new RuleSet(settings.rules, user.rules, user.hideDotfiles) });
  }

  /** Completes an access with its scope: handles may touch what the rules allow at its real location. */
  private withScope(a: Omit<Access, 'scope'>): Access {
    const access = a as Access;
    const { rootReal } = access;
    access.scope = {
      rootReal,
      partials: this.partials,
      permits: (real) => {
        if (!isInside(rootReal, real)) return false;
        if (this.protectedPaths.length && this.isProtected(real)) return false;
        if (!access.rules.hasRules) return true;
        return this.ruleAllows(access, rootReal === '/' ? real : real.slice(rootReal.length) || '/', true);
      },
    };
    return access;
  }

  /** The whole served root, for fm's own housekeeping (sweeping temporary files): only fm's own files are off limits. */
  serverScope(): Scope {
    return { rootReal: this.root, partials: this.partials, permits: (real) => isInside(this.root, real) && !this.isProtected(real) };
  }

  /**
   * An access rooted at a folder inside another access (public shares): "/" becomes that folder,
   * rules still see the full scope path. `virtual` must already have been resolved for `share`.
   */
  subAccess(parent: Access, target: Target): Access {
    const prefix = (p: string) => (p === '/' ? '' : p);
    const realVirtual = realToVirtual(parent.rootReal, target.real);
    if (realVirtual === undefined) throw new ForbiddenError('the path leads outside your scope', 'outside_scope');
    const realScopePath = this.scopePathOf(parent, realVirtual);
    return this.withScope({
      user: parent.user,
      settings: parent.settings,
      rules: parent.rules,
      rootReal: target.real,
      rulePrefix: prefix(realScopePath),
      aliasPrefix: realScopePath === target.scopePath ? undefined : prefix(target.scopePath),
    });
  }

  /** Whether the rules allow a virtual path (and its alias, if any). Dotfiles too unless `rulesOnly`. */
  private ruleAllows(access: Access, virtual: string, rulesOnly = false): boolean {
    // No rule and no hidden dotfiles: every path is allowed (spares the scope path per check, per search hit).
    if (access.rules.isEmpty) return true;
    const check = (p: string) => (rulesOnly ? access.rules.allowsByRules(p) : access.rules.allows(p));
    if (!check(this.scopePathOf(access, virtual))) return false;
    if (access.aliasPrefix === undefined) return true;
    return check(access.aliasPrefix + (virtual === '/' ? '' : virtual) || '/');
  }

  /** Throws 403 unless the user holds every permission the op needs. */
  checkPermission(access: Access, op: Op): void {
    const perm = access.user.perm;
    if (perm.admin) return;
    for (const p of OP_PERMS[op]) if (!perm[p]) throw new ForbiddenError(`${p} permission required`, 'permission_required');
  }

  scopePathOf(access: Access, virtual: string): string {
    return access.rulePrefix ? (virtual === '/' ? access.rulePrefix : access.rulePrefix + virtual) : virtual;
  }

  /** Whether a virtual path is visible to this access (rules and hidden dotfiles). */
  visible(access: Access, virtual: string): boolean {
    return this.ruleAllows(access, virtual);
  }

  /** Resolves a cleaned virtual path for an op. See the module comment for the checks. */
  async resolve(access: Access, virtual: string, op: Op, opts: ResolveOptions = {}): Promise<Target> {
    this.checkPermission(access, op);
    const clean = cleanPath(virtual).path;
    if (clean === '/' && opts.allowRoot === false) throw new ForbiddenError('not allowed on the root folder');
    const scopePath = this.scopePathOf(access, clean);
    if (!this.ruleAllows(access, clean)) throw new ForbiddenError('access denied by a rule', 'denied_by_rule');

    const lexical = clean === '/' ? access.rootReal : path.join(access.rootReal, clean);
    const parentReal = clean === '/' ? path.dirname(access.rootReal) : await this.realParent(access, lexical);
    const abs = clean === '/' ? access.rootReal : path.join(parentReal, path.basename(lexical));
    // fm's own files, and the temporary files of writes in progress (nobody may read half an
    // upload or plant a file the temporary-file sweep would take for its own).
    if (this.isProtected(abs) || clean.includes(`/${PARTIAL_PREFIX}`)) throw new NotFoundError('not found');

    // A file where a parent folder should be: the path does not exist (creating it is then a
    // conflict, which opening the parent reports).
    const lstat = lstatOrMissingNow(abs);
    const mustExist = opts.mustExist ?? !WRITE_OPS.has(op);
    if (!lstat) {
      if (mustExist) throw new NotFoundError('not found');
      // Where it would be created: the real parent plus the name.
      this.checkRealLocation(access, clean, abs);
      return { access, virtual: clean, scopePath, abs, real: abs, exists: false, isSymlink: false, isDir: false };
    }

    const isSymlink = lstat.isSymbolicLink();
    if (!isSymlink) {
      this.checkRealLocation(access, clean, abs);
      return { access, virtual: clean, scopePath, abs, real: abs, exists: true, lstat, stat: lstat, isSymlink, isDir: lstat.isDirectory() };
    }
    if (ENTRY_OPS.has(op)) {
      // Deleting or moving a link touches the link, not its target.
      this.checkRealLocation(access, clean, abs);
      return { access, virtual: clean, scopePath, abs, real: abs, exists: true, lstat, isSymlink, isDir: false };
    }
    let real: string;
    try {
      real = await realPath(abs);
    } catch {
      // Never write through a dangling link: the write would land wherever it points.
      if (WRITE_OPS.has(op)) throw new ForbiddenError('will not write through a dangling symbolic link');
      throw new NotFoundError('the link target does not exist');
    }
    if (!isWithinReal(access.rootReal, real) || this.isProtected(real)) throw new ForbiddenError('the link leads outside your scope', 'outside_scope');
    this.checkRealLocation(access, clean, real);
    const st = await stat(real);
    // Writes through a link inside the scope go to its target (`real`), as filebrowser does.
    return { access, virtual: clean, scopePath, abs, real, exists: true, lstat, stat: st, isSymlink, isDir: st.isDirectory() };
  }

  /**
   * When symlinks make a path's real location differ from its virtual path, the rules must
   * allow the real location too: a link must not open a way around a rule that denies a folder.
   */
  private checkRealLocation(access: Access, virtual: string, real: string): void {
    const lexical = virtual === '/' ? access.rootReal : path.join(access.rootReal, virtual);
    if (real === lexical) return;
    const realVirtual = realToVirtual(access.rootReal, real);
    if (realVirtual === undefined) throw new ForbiddenError('the path leads outside your scope', 'outside_scope');
    if (!this.ruleAllows(access, realVirtual, true)) throw new ForbiddenError('access denied by a rule', 'denied_by_rule');
  }

  /**
   * A symlink found inside a tree or listing, resolved like `resolve` does: its target's real
   * path and stats, 'dangling' when the target is missing, 'denied' when it leaves the scope,
   * is one of fm's own files or lies where the rules deny access.
   */
  resolveLinkEntry(access: Access, abs: string): { real: string; stat: Stats } | 'dangling' | 'denied' {
    let real: string;
    try {
      real = realPathSync(abs);
    } catch {
      return 'dangling';
    }
    const realVirtual = realToVirtual(access.rootReal, real);
    if (realVirtual === undefined || this.isProtected(real)) return 'denied';
    if (!this.ruleAllows(access, realVirtual, true)) return 'denied';
    try {
      return { real, stat: statSync(real) };
    } catch {
      return 'dangling';
    }
  }

  /**
   * The real path of `lexical`'s parent, which must lie inside the access root. Missing parents
   * are allowed (creation makes them): the deepest existing ancestor is checked instead.
   */
  private async realParent(access: Access, lexical: string): Promise<string> {
    const parent = path.dirname(lexical);
    let existing = parent;
    const missing: string[] = [];
    for (;;) {
      try {
        const real = realPathNow(existing);
        if (!isWithinReal(access.rootReal, real) || this.isProtected(real)) throw new ForbiddenError('the path leads outside your scope', 'outside_scope');
        return missing.length ? path.join(real, ...missing.reverse()) : real;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // A missing parent, or a file where a folder should be: check the ancestor above it.
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
        if (existing === access.rootReal || existing.length <= access.rootReal.length) throw new NotFoundError('not found');
        missing.push(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
  }

  /**
   * A handle on the folder holding a resolved target, for the operation the gate allowed: the
   * parent of its contents (`real`; writes land on a link's target) or, with `entry`, of the
   * entry itself (`abs`; delete and move act on a link, not its target). Missing folders are
   * created with `create`. The handle is checked to be that very folder, and every entry it
   * touches is checked against the rules at its real location (disk/handle.ts). Open it after
   * the before-hooks ran, so a folder swapped during a hook is caught.
   */
  async openParent(target: Target, opts: OpenParentOptions = {}): Promise<{ dir: DirHandle; name: string }> {
    const loc = opts.entry ? target.abs : target.real;
    if (loc === target.access.rootReal) throw new ForbiddenError('not allowed on the root folder');
    const scope = target.access.scope;
    const name = path.basename(loc);
    if (!scope.permits(loc)) throw new ForbiddenError('access denied by a rule', 'denied_by_rule');
    const parent = path.dirname(loc);
    if (opts.create === undefined) return { dir: await DirHandle.open(parent, scope), name };
    return { dir: await openCreating(parent, scope, opts.create), name };
  }

  /** Runs `fn` with the target's parent folder open (`openParent`), closing it afterwards. */
  async withParent<T>(target: Target, opts: OpenParentOptions, fn: (dir: DirHandle, name: string) => Promise<T>): Promise<T> {
    const { dir, name } = await this.openParent(target, opts);
    try {
      return await fn(dir, name);
    } finally {
      await dir.close();
    }
  }

  /**
   * Checks every descendant of a folder target for a recursive op: any path the rules deny or
   * any of fm's own files makes the whole operation 403. Hidden dotfiles do not count (they
   * travel with their folder). With `refuseEscapingLinks` (copies, which recreate links), a
   * link whose target leaves the scope is refused too. With `mappedTo`, each descendant is also
   * checked at the place it will take under that virtual path (a copy or move destination).
   */
  async checkTree(target: Target, opts: CheckTreeOptions = {}): Promise<void> {
    if (!target.isDir || (target.isSymlink && target.real === target.abs)) return;
    const { access } = target;
    const noRules = access.rules.isEmpty;
    const holdsProtected = this.protectedPaths.some((p) => isWithinReal(target.real, p));
    if (noRules && !holdsProtected && !opts.refuseEscapingLinks) return;
    const mapped = opts.mappedTo;
    for await (const entry of walk(target.real, target.virtual)) {
      if (holdsProtected && this.isProtected(entry.abs)) throw new ForbiddenError(`${entry.virtual} belongs to fm itself`);
      if (!noRules) {
        if (!this.ruleAllows(access, entry.virtual, true)) {
          throw new ForbiddenError(`access to ${entry.virtual} is denied by a rule`, 'denied_by_rule');
        }
        if (mapped !== undefined) {
          const rel = target.virtual === '/' ? entry.virtual : entry.virtual.slice(target.virtual.length);
          const dest = mapped === '/' ? rel : mapped + rel;
          if (!this.ruleAllows(access, dest, true)) throw new ForbiddenError(`access to ${dest} is denied by a rule`, 'denied_by_rule');
        }
      }
      if (opts.refuseEscapingLinks && entry.dirent.isSymbolicLink() && this.resolveLinkEntry(access, entry.abs) === 'denied') {
        throw new ForbiddenError(`${entry.virtual} is a link that leads outside your scope`, 'outside_scope');
      }
    }
  }

  /**
   * Visits the visible descendants of a folder (rules, dotfiles, protected files and in-progress
   * uploads left out), pruning denied folders; symlinks are reported but never descended into
   * (resolve them with `resolveLinkEntry`).
   */
  async *visibleTree(target: Target): AsyncGenerator<TreeEntry> {
    const { access } = target;
    const skip = (e: TreeEntry) => isPartialName(e.dirent.name) || this.isProtected(e.abs) || !this.visible(access, e.virtual);
    for await (const entry of walk(target.real, target.virtual, skip)) {
      yield entry;
    }
  }
}

export interface CheckTreeOptions {
  /** Refuse links whose targets leave the scope (or are denied). */
  refuseEscapingLinks?: boolean;
  /** Also check each descendant at its place under this virtual path (copy/move destination). */
  mappedTo?: string;
}

export interface TreeEntry {
  /** Virtual path (relative to the access root). */
  virtual: string;
  abs: string;
  dirent: Dirent;
}

/**
 * Opens the folder `real`, creating it and its missing parents (mode `mode`) one level at a
 * time below the deepest one that exists, each through a handle on its parent.
 */
async function openCreating(real: string, scope: Scope, mode: number): Promise<DirHandle> {
  const missing: string[] = [];
  let cur = real;
  let dir: DirHandle;
  for (;;) {
    try {
      dir = await DirHandle.open(cur, scope);
      break;
    } catch (err) {
      if (!isMissing(err) || cur === scope.rootReal || !isInside(scope.rootReal, cur)) throw err;
      missing.unshift(path.basename(cur));
      cur = path.dirname(cur);
    }
  }
  for (const name of missing) {
    const parent = dir;
    try {
      dir = await parent.ensureChild(name, mode);
    } finally {
      await parent.close();
    }
  }
  return dir;
}

function isMissing(err: unknown): boolean {
  return err instanceof NotFoundError || (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Depth-first walk without following symlinks; `skip` prunes an entry (and its subtree). Names
 * are byte-exact (disk/names.ts): a name that is not UTF-8 is walked, never skipped.
 */
export async function* walk(dirAbs: string, dirVirtual: string, skip?: (e: TreeEntry) => boolean): AsyncGenerator<TreeEntry> {
  const stack: Array<[string, string]> = [[dirAbs, dirVirtual]];
  while (stack.length) {
    const [abs, virtual] = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readEntries(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') continue;
      throw err;
    }
    for (const dirent of entries) {
      const e: TreeEntry = { virtual: virtual === '/' ? `/${dirent.name}` : `${virtual}/${dirent.name}`, abs: path.join(abs, dirent.name), dirent };
      if (skip?.(e)) continue;
      yield e;
      if (dirent.isDirectory()) stack.push([e.abs, e.virtual]);
    }
  }
}

/** The virtual path of a real path under `rootReal`, or undefined when it lies outside. */
export function realToVirtual(rootReal: string, real: string): string | undefined {
  if (!isWithinReal(rootReal, real)) return undefined;
  const rel = path.relative(rootReal, real);
  return rel ? `/${rel.split(path.sep).join('/')}` : '/';
}

/** True when `child` (a real path) is `parent` or inside it. */
export function isWithinReal(parent: string, child: string): boolean {
  return isWithin(parent, child);
}

function realOrSelf(p: string): string {
  const abs = path.resolve(p);
  try {
    return realPathSync(abs);
  } catch {
    try {
      return path.join(realPathSync(path.dirname(abs)), path.basename(abs));
    } catch {
      return abs;
    }
  }
}
