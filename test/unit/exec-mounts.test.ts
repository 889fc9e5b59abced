/**
 * The sandbox's mount plan (pure): system folders, the tree with rule masks and re-binds, fm's
 * own files, program files; its rendering as bwrap arguments; where pids cgroups can be made;
 * and the argument checks' path candidates (the second layer).
 */
import { describe, expect, it } from 'vitest';
import type { Rule } from '../../src/api/user.ts';
import { bwrapArgs } from '../../src/services/exec/bwrap.ts';
import { sandboxMounts, treeMounts, type Mount, type PathFact, type TreeSpec } from '../../src/services/exec/mounts.ts';
import { cgroupCandidates } from '../../src/services/exec/pids.ts';
import { pathCandidates } from '../../src/services/exec/plan.ts';
import { CommandRefusedError } from '../../src/services/exec/syntax.ts';

const ROOT = '/srv/files/alice';

/** A fake disk: every listed path exists with that kind (and real path, when a link is on the way). */
function disk(entries: Record<string, 'dir' | 'file' | { kind: 'dir' | 'file'; real: string }>) {
  return (abs: string): PathFact => {
    const e = entries[abs];
    if (!e) return { kind: 'missing', real: abs };
    return typeof e === 'string' ? { kind: e, real: abs } : e;
  };
}

const rule = (path: string, allow = false): Rule => ({ regex: false, allow, path, regexp: { raw: '' } });
const tree = (over: Partial<TreeSpec> = {}): TreeSpec => ({ root: ROOT, writable: true, rules: [], protectedPaths: [], ...over });

describe('treeMounts', () => {
  it('mounts the scope at its real path, read-write or read-only', () => {
    expect(treeMounts(tree(), disk({}))).toEqual([{ op: 'bind', src: ROOT, dest: ROOT }]);
    expect(treeMounts(tree({ writable: false }), disk({}))).toEqual([{ op: 'ro-bind', src: ROOT, dest: ROOT }]);
  });

  it('masks a denied folder with a read-only tmpfs and a denied file with an empty file', () => {
    const mounts = treeMounts(tree({ rules: [rule('/secret'), rule('/notes.txt')] }), disk({ [`${ROOT}/secret`]: 'dir', [`${ROOT}/notes.txt`]: 'file' }));
    expect(mounts).toEqual([
      { op: 'bind', src: ROOT, dest: ROOT },
      { op: 'empty-file', dest: `${ROOT}/notes.txt` },
      { op: 'tmpfs', dest: `${ROOT}/secret` },
      { op: 'remount-ro', dest: `${ROOT}/secret` },
    ]);
  });

  it('binds back what an allow rule below a deny opens, and masks again a deny below that (last match wins)', () => {
    const rules = [rule('/a'), rule('/a/b', true), rule('/a/b/c')];
    const facts = disk({ [`${ROOT}/a`]: 'dir', [`${ROOT}/a/b`]: 'dir', [`${ROOT}/a/b/c`]: 'dir' });
    expect(treeMounts(tree({ rules, writable: false }), facts)).toEqual([
      { op: 'ro-bind', src: ROOT, dest: ROOT },
      { op: 'tmpfs', dest: `${ROOT}/a` },
      { op: 'ro-bind', src: `${ROOT}/a/b`, dest: `${ROOT}/a/b` },
      { op: 'tmpfs', dest: `${ROOT}/a/b/c` },
      { op: 'remount-ro', dest: `${ROOT}/a` },
      { op: 'remount-ro', dest: `${ROOT}/a/b/c` },
    ]);
  });

  it('follows rule order, not path order: a later allow of the same path undoes a deny; a deny of an ancestor after an allow wins', () => {
    const facts = disk({ [`${ROOT}/a`]: 'dir', [`${ROOT}/a/b`]: 'dir' });
    expect(treeMounts(tree({ rules: [rule('/a'), rule('/a', true)] }), facts)).toEqual([{ op: 'bind', src: ROOT, dest: ROOT }]);
    // /a/b allowed first, then /a denied: /a/b is denied too (the deny matches it last).
    expect(treeMounts(tree({ rules: [rule('/a/b', true), rule('/a')] }), facts)).toEqual([
      { op: 'bind', src: ROOT, dest: ROOT },
      { op: 'tmpfs', dest: `${ROOT}/a` },
      { op: 'remount-ro', dest: `${ROOT}/a` },
    ]);
  });

  it('matches rules on segment boundaries (/a does not hide /ab)', () => {
    const mounts = treeMounts(tree({ rules: [rule('/a')] }), disk({ [`${ROOT}/a`]: 'dir', [`${ROOT}/ab`]: 'dir' }));
    expect(mounts.filter((m) => m.op === 'tmpfs')).toEqual([{ op: 'tmpfs', dest: `${ROOT}/a` }]);
  });

  it('masks the real location behind a link, and never binds back through a link', () => {
    const facts = disk({
      [`${ROOT}/alias`]: { kind: 'dir', real: `${ROOT}/private` },
      [`${ROOT}/out`]: { kind: 'dir', real: '/etc' },
      [`${ROOT}/a`]: 'dir',
      [`${ROOT}/a/link`]: { kind: 'dir', real: '/home/bob' },
    });
    const mounts = treeMounts(tree({ rules: [rule('/alias'), rule('/out'), rule('/a'), rule('/a/link', true)] }), facts);
    expect(mounts).toEqual([
      { op: 'bind', src: ROOT, dest: ROOT },
      { op: 'tmpfs', dest: `${ROOT}/a` },
      { op: 'tmpfs', dest: `${ROOT}/private` },
      // /out leads outside the tree, which is not mounted: nothing to hide; /a/link is not bound back.
      { op: 'remount-ro', dest: `${ROOT}/a` },
      { op: 'remount-ro', dest: `${ROOT}/private` },
    ]);
  });

  it('leaves paths that do not exist alone (no mount point is created on the host)', () => {
    expect(treeMounts(tree({ rules: [rule('/missing')], protectedPaths: [`${ROOT}/fm.db-wal`] }), disk({}))).toEqual([{ op: 'bind', src: ROOT, dest: ROOT }]);
  });

  it("masks fm's own files and folders inside the tree, after the rules' re-binds, and ignores those outside", () => {
    const facts = disk({ [`${ROOT}/data`]: 'dir', [`${ROOT}/data/fm.db`]: 'file', [`${ROOT}/data/cache`]: 'dir', '/var/lib/fm/fm.db': 'file' });
    const mounts = treeMounts(
      tree({ rules: [rule('/'), rule('/data', true)], protectedPaths: [`${ROOT}/data/fm.db`, `${ROOT}/data/cache`, '/var/lib/fm/fm.db'] }),
      facts,
    );
    expect(mounts).toEqual([
      // The scope is denied as a whole: only /data, which a rule opens, is there.
      { op: 'tmpfs', dest: ROOT },
      { op: 'bind', src: `${ROOT}/data`, dest: `${ROOT}/data` },
      { op: 'empty-file', dest: `${ROOT}/data/fm.db` },
      { op: 'tmpfs', dest: `${ROOT}/data/cache` },
      { op: 'remount-ro', dest: ROOT },
      { op: 'remount-ro', dest: `${ROOT}/data/cache` },
    ]);
  });

  it('refuses users with regular-expression rules', () => {
    const regex: Rule = { regex: true, allow: false, path: '', regexp: { raw: '\\.key$' } };
    expect(() => treeMounts(tree({ rules: [regex] }), disk({}))).toThrow(CommandRefusedError);
    expect(() => treeMounts(tree({ rules: [regex] }), disk({}))).toThrow(/regular-expression rules/);
  });

  it('refuses a tree that is or holds a folder the sandbox mounts itself', () => {
    for (const root of ['/', '/tmp', '/tmp/home', '/usr', '/proc/1', '/dev/shm', '/sys/x']) {
      expect(() => treeMounts(tree({ root }), disk({})), root).toThrow(/system folder/);
    }
    for (const root of ['/tmp/fm-x/alice', '/usr/share/doc', '/home', '/srv']) expect(() => treeMounts(tree({ root }), disk({}))).not.toThrow();
  });
});

describe('sandboxMounts', () => {
  const layout = { '/bin': { link: 'usr/bin' }, '/lib': { link: 'usr/lib' }, '/lib64': 'dir' as const };

  it('system folders read-only, only listed /etc files, private /tmp with HOME, fresh /proc and /dev', () => {
    const mounts = sandboxMounts({ layout, network: false, tmpSize: 1024, programs: [] }, disk({}));
    expect(mounts).toContainEqual({ op: 'ro-bind', src: '/usr', dest: '/usr' });
    expect(mounts).toContainEqual({ op: 'symlink', target: 'usr/bin', dest: '/bin' });
    expect(mounts).toContainEqual({ op: 'ro-bind', src: '/lib64', dest: '/lib64' });
    expect(mounts).toContainEqual({ op: 'ro-bind', src: '/etc/passwd', dest: '/etc/passwd', optional: true });
    expect(mounts).toContainEqual({ op: 'tmpfs', dest: '/tmp', size: 1024 });
    expect(mounts).toContainEqual({ op: 'dir', dest: '/tmp/home' });
    expect(mounts).toContainEqual({ op: 'proc', dest: '/proc' });
    expect(mounts).toContainEqual({ op: 'dev', dest: '/dev' });
    const etc = mounts.filter((m): m is Extract<Mount, { src: string }> => 'src' in m && m.src.startsWith('/etc'));
    for (const secret of ['/etc/shadow', '/etc/gshadow', '/etc/ssl/private', '/etc/resolv.conf', '/etc']) {
      expect(etc.map((m) => m.src)).not.toContain(secret);
    }
    expect(mounts.some((m) => m.op !== 'symlink' && m.dest === '/sys')).toBe(false);
  });

  it('adds resolv.conf only with the network', () => {
    const withNet = sandboxMounts({ layout, network: true, tmpSize: 0, programs: [] }, disk({}));
    expect(withNet).toContainEqual({ op: 'ro-bind', src: '/etc/resolv.conf', dest: '/etc/resolv.conf', optional: true });
    expect(withNet).toContainEqual({ op: 'tmpfs', dest: '/tmp' });
  });

  it('binds program files outside the system folders and the tree, read-only', () => {
    const mounts = sandboxMounts(
      { layout, network: false, tmpSize: 0, programs: ['/usr/bin/ls', '/opt/hooks/scan.sh', `${ROOT}/tool`], tree: tree() },
      disk({}),
    );
    expect(mounts).toContainEqual({ op: 'ro-bind', src: '/opt/hooks/scan.sh', dest: '/opt/hooks/scan.sh' });
    expect(mounts.filter((m) => 'src' in m && (m.src === '/usr/bin/ls' || m.src === `${ROOT}/tool`))).toEqual([]);
    // The tree comes after the system folders, so a scope under /tmp lands on the private /tmp.
    const order = mounts.map((m) => m.dest);
    expect(order.indexOf(ROOT)).toBeGreaterThan(order.indexOf('/tmp'));
  });
});

describe('bwrapArgs', () => {
  it('unshares everything, keeps the network only when allowed, and renders each mount', () => {
    const mounts: Mount[] = [
      { op: 'ro-bind', src: '/etc/hosts', dest: '/etc/hosts', optional: true },
      { op: 'bind', src: ROOT, dest: ROOT },
      { op: 'tmpfs', dest: '/tmp', size: 4096 },
      { op: 'empty-file', dest: `${ROOT}/fm.db` },
      { op: 'remount-ro', dest: '/x' },
      { op: 'empty-file', dest: `${ROOT}/fm.db-wal` },
    ];
    const args = bwrapArgs(mounts, { network: false, cwd: ROOT, firstEmptyFd: 4, infoFd: 3 });
    expect(args.slice(0, 3)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns']);
    expect(args).not.toContain('--share-net');
    for (const flag of ['--die-with-parent', '--new-session']) expect(args).toContain(flag);
    expect(args.join(' ')).toContain('--cap-drop ALL --info-fd 3 --ro-bind-try /etc/hosts /etc/hosts');
    expect(args.join(' ')).toContain(
      `--bind ${ROOT} ${ROOT} --size 4096 --tmpfs /tmp --perms 0444 --ro-bind-data 4 ${ROOT}/fm.db --remount-ro /x --perms 0444 --ro-bind-data 5 ${ROOT}/fm.db-wal`,
    );
    expect(args.slice(-3)).toEqual(['--chdir', ROOT, '--']);
    expect(bwrapArgs([], { network: true, cwd: '/' })).toContain('--share-net');
  });
});

describe('cgroupCandidates', () => {
  it("a v1 pids hierarchy at fm's own place; in v2 the parent of fm's cgroup, then the root", () => {
    const v1 = '12:memory:/x\n8:pids:/user.slice/fm.service\n0::/user.slice/fm.service\n';
    expect(cgroupCandidates(v1, undefined)).toEqual([{ dir: '/sys/fs/cgroup/pids/user.slice/fm.service', version: 1 }]);
    expect(cgroupCandidates('0::/system.slice/fm.service/serve\n', '/sys/fs/cgroup')).toEqual([
      { dir: '/sys/fs/cgroup/system.slice/fm.service', version: 2 },
      { dir: '/sys/fs/cgroup', version: 2 },
    ]);
    expect(cgroupCandidates('0::/fm.service\n', '/sys/fs/cgroup')).toEqual([{ dir: '/sys/fs/cgroup', version: 2 }]);
    expect(cgroupCandidates('0::/\n', '/sys/fs/cgroup')).toEqual([{ dir: '/sys/fs/cgroup', version: 2 }]);
    expect(cgroupCandidates('4:cpu,pids:/\n', undefined)).toEqual([{ dir: '/sys/fs/cgroup/pids', version: 1 }]);
  });
});

describe('pathCandidates (the argument checks, second layer)', () => {
  it('finds the path in bundled short options, option values, dd operands and file: URLs', () => {
    expect(pathCandidates('-vt/abs')).toContain('/abs');
    expect(pathCandidates('-uo/abs')).toContain('/abs');
    expect(pathCandidates('-o/abs')).toContain('/abs');
    expect(pathCandidates('-o..')).toContain('..');
    expect(pathCandidates('-o../x')).toContain('../x');
    expect(pathCandidates('--target-directory=/abs')).toContain('/abs');
    expect(pathCandidates('if=/etc/passwd')).toContain('/etc/passwd');
    expect(pathCandidates('of=/tmp/x')).toContain('/tmp/x');
    expect(pathCandidates('file:///etc/passwd')).toContain('/etc/passwd');
    expect(pathCandidates('FILE://localhost/etc/passwd')).toContain('/etc/passwd');
    expect(pathCandidates('--url=file:/etc/passwd')).toContain('/etc/passwd');
    // Plain words and options without a path add nothing surprising.
    expect(pathCandidates('-la')).toEqual(['-la']);
    expect(pathCandidates('notes.txt')).toEqual(['notes.txt']);
    // A shell script handed to a forced bash is one word, not an operand.
    expect(pathCandidates('dd if=/dev/zero of=x')).toEqual(['dd if=/dev/zero of=x']);
  });
});
