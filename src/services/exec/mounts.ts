/**
 * What a sandbox sees, as a list of mounts (pure: every fact about the disk comes in through
 * `PathFacts`). bwrap.ts turns the list into bubblewrap arguments. The layout:
 * - system folders read-only: /usr, the /bin, /lib, ... links or folders, and from /etc only
 *   the files programs need (never /etc/shadow, /etc/ssl/private, ...);
 * - a private /tmp holding a fresh HOME, a new /proc and /dev;
 * - program files that live elsewhere (an admin's hook script), read-only at their path;
 * - the tree (a user's scope, or the served root for hooks) at its real path, read-write or
 *   read-only, with the folders and files path rules deny masked, a sub-path an allow rule
 *   opens again bound back, and fm's own files (database, caches, upload staging) masked.
 */
import path from 'node:path';
import type { Rule } from '../../api/user.ts';
import { RuleSet } from '../files/rules.ts';
import { cleanPath, isWithin } from '../files/paths.ts';
import { CommandRefusedError } from './syntax.ts';

export type Mount =
  | { op: 'bind' | 'ro-bind'; src: string; dest: string; optional?: boolean }
  | { op: 'tmpfs'; dest: string; size?: number }
  /** An empty read-only file over `dest`. */
  | { op: 'empty-file'; dest: string }
  | { op: 'symlink'; target: string; dest: string }
  | { op: 'dir'; dest: string }
  | { op: 'proc' | 'dev'; dest: string }
  | { op: 'remount-ro'; dest: string };

/** What is at an absolute path: its kind (links followed) and its real path. */
export interface PathFact {
  kind: 'dir' | 'file' | 'missing';
  /** The real path (symlinks resolved); equals the path when nothing on the way is a link. */
  real: string;
}
export type PathFacts = (abs: string) => PathFact;

/** The top-level system entries of the host: a link (merged /usr) or a folder. */
export type SystemLayout = Record<string, { link: string } | 'dir'>;

/** Top-level entries mounted read-only (as the host has them: links or folders). */
export const SYSTEM_TOP = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * Files of /etc that programs read and that hold nothing secret. Everything else of /etc stays
 * out: when fm runs as root the sandbox is root on the host's files (without capabilities), so
 * root-only files such as /etc/shadow would otherwise be readable.
 */
export const ETC_FILES = [
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'alternatives',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'mime.types',
  'magic',
  'magic.mime',
  'os-release',
  'terminfo',
  'fonts',
  'ImageMagick-6',
  'ImageMagick-7',
  'services',
  'protocols',
  'locale.alias',
  'shells',
];
/** Added when the admin allows the network. */
export const ETC_NETWORK_FILES = ['resolv.conf', 'gai.conf'];

/** HOME inside every sandbox: a folder of the private /tmp, never the user's folder. */
export const SANDBOX_HOME = '/tmp/home';

/** Paths the sandbox itself mounts: a tree may not be, or hold, any of them. */
const SANDBOX_PATHS = ['/usr', '/etc', '/tmp', '/proc', '/dev', SANDBOX_HOME, ...SYSTEM_TOP];

export interface TreeSpec {
  /** Real path of the folder mounted (a user's scope, or the served root for hooks). */
  root: string;
  writable: boolean;
  /** Global rules then the user's (empty for hooks). */
  rules: readonly Rule[];
  /** fm's own files and folders (real paths), masked where they lie inside `root`. */
  protectedPaths: readonly string[];
}

export interface SandboxSpec {
  layout: SystemLayout;
  network: boolean;
  /** Size limit of the private /tmp in bytes (0: the kernel's default). */
  tmpSize: number;
  /** Absolute program files the line runs (those outside the mounted folders get bound). */
  programs: readonly string[];
  tree?: TreeSpec;
}

/** Every mount of a sandbox, in order. Throws CommandRefusedError when the tree cannot be mounted. */
export function sandboxMounts(spec: SandboxSpec, facts: PathFacts): Mount[] {
  const mounts: Mount[] = [{ op: 'ro-bind', src: '/usr', dest: '/usr' }];
  for (const top of SYSTEM_TOP) {
    const entry = spec.layout[top];
    if (!entry) continue;
    mounts.push(entry === 'dir' ? { op: 'ro-bind', src: top, dest: top } : { op: 'symlink', target: entry.link, dest: top });
  }
  for (const name of [...ETC_FILES, ...(spec.network ? ETC_NETWORK_FILES : [])]) {
    mounts.push({ op: 'ro-bind', src: `/etc/${name}`, dest: `/etc/${name}`, optional: true });
  }
  mounts.push({ op: 'proc', dest: '/proc' }, { op: 'dev', dest: '/dev' });
  mounts.push({ op: 'tmpfs', dest: '/tmp', ...(spec.tmpSize > 0 ? { size: spec.tmpSize } : {}) }, { op: 'dir', dest: SANDBOX_HOME });
  mounts.push({ op: 'symlink', target: '../tmp', dest: '/var/tmp' });
  for (const file of spec.programs) {
    if (isSystemPath(file) || (spec.tree && isWithin(spec.tree.root, file))) continue;
    mounts.push({ op: 'ro-bind', src: file, dest: file });
  }
  if (spec.tree) mounts.push(...treeMounts(spec.tree, facts));
  return mounts;
}

/** True for paths under the read-only system folders every sandbox has. */
function isSystemPath(file: string): boolean {
  return ['/usr', ...SYSTEM_TOP].some((top) => isWithin(top, file));
}

/**
 * The tree and what hides parts of it: rule masks (shallow to deep, so an allow rule below a
 * deny binds its sub-path back), then fm's own files, then the masks turned read-only.
 */
export function treeMounts(tree: TreeSpec, facts: PathFacts): Mount[] {
  checkTreeLocation(tree.root);
  if (tree.rules.some((r) => r.regex)) {
    throw new CommandRefusedError(
      'commands are not available to users with regular-expression rules: the sandbox can only hide folders and files named by path rules (ask an admin to use path rules)',
    );
  }
  const bind = tree.writable ? 'bind' : 'ro-bind';
  const rules = new RuleSet([...tree.rules], [], false);
  const mounts: Mount[] = [];
  const readOnlyAfter: string[] = [];
  // A scope denied as a whole shows only what allow rules open in it.
  if (rules.allowsByRules('/')) mounts.push({ op: bind, src: tree.root, dest: tree.root });
  else {
    mounts.push({ op: 'tmpfs', dest: tree.root });
    readOnlyAfter.push(tree.root);
  }
  const mask = (abs: string): void => {
    const fact = facts(abs);
    if (fact.kind === 'missing') return;
    // Behind a link, hide the real location (when it is in the tree; elsewhere is not mounted).
    const target = fact.real;
    if (!isWithin(tree.root, target)) return;
    if (fact.kind === 'dir') {
      mounts.push({ op: 'tmpfs', dest: target });
      readOnlyAfter.push(target);
    } else mounts.push({ op: 'empty-file', dest: target });
  };

  const points = [...new Set(tree.rules.map((r) => ruleBase(r.path)).filter((p): p is string => p !== undefined))].sort(
    (a, b) => depth(a) - depth(b) || a.localeCompare(b),
  );
  for (const point of points) {
    if (point === '/') continue;
    const above = points.filter((p) => p !== point && isWithin(p, point)).pop() ?? '/';
    const allowed = rules.allowsByRules(point);
    if (allowed === rules.allowsByRules(above)) continue;
    const abs = path.join(tree.root, point);
    if (!allowed) {
      mask(abs);
      continue;
    }
    // Bound back only when the path has no link on the way: a link could lead anywhere.
    const fact = facts(abs);
    if (fact.kind !== 'missing' && fact.real === abs) mounts.push({ op: bind, src: abs, dest: abs });
  }
  for (const p of tree.protectedPaths) if (p !== tree.root && isWithin(tree.root, p)) mask(p);
  for (const dest of readOnlyAfter) mounts.push({ op: 'remount-ro', dest });
  return mounts;
}

/** A tree that is, or holds, a folder the sandbox mounts itself (/, /tmp, /usr, ...) cannot be mounted. */
export function checkTreeLocation(root: string): void {
  if (!path.isAbsolute(root)) throw new Error(`not an absolute path: ${root}`);
  if (SANDBOX_PATHS.some((p) => isWithin(root, p)) || ['/proc', '/dev', '/sys'].some((p) => isWithin(p, root))) {
    throw new CommandRefusedError(`commands cannot run in ${root}: it is or holds a system folder the sandbox mounts itself`);
  }
}

/** The cleaned virtual path a path rule applies to, or undefined for an unusable one. */
function ruleBase(raw: string): string | undefined {
  try {
    return cleanPath(raw || '/').path;
  } catch {
    return undefined;
  }
}

function depth(virtual: string): number {
  return virtual === '/' ? 0 : virtual.split('/').length - 1;
}
