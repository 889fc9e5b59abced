/**
 * The Sandbox against real bwrap, below the server: the process limit where no pids cgroup is
 * used (when fm is root, RLIMIT_NPROC does not hold, so the PID namespace is counted), a stopped
 * sandbox taking everything in it along, and the refusal without bwrap.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunningProcess, scrubbedEnv, type ProcessResult } from '../../src/services/exec/process.ts';
import { Sandbox, type SandboxRequest } from '../../src/services/exec/sandbox.ts';
import { tempDir } from '../helpers/server.ts';
import { alive } from '../helpers/processes.ts';

const LIMITS = { memory: 512 * 1024 * 1024, fileSize: 1024 * 1024, processes: 12 };

async function runIn(sandbox: Sandbox, req: Partial<SandboxRequest> & { file: string; args: string[] }): Promise<{ result: ProcessResult; lines: string[] }> {
  const spec = await sandbox.prepare({ cwd: '/', programs: [req.file], network: false, limits: LIMITS, ...req });
  const lines: string[] = [];
  const proc = new RunningProcess(
    { ...spec, cwd: '/', env: scrubbedEnv('/tmp/home'), limits: { timeoutMs: 60_000, maxOutputBytes: 1 << 20 } },
    { line: (l) => lines.push(l) },
  );
  return { result: await proc.done, lines };
}

describe('Sandbox', () => {
  it('counts the processes of its PID namespace when it holds no cgroup, and stops a run past the limit', async () => {
    const sandbox = new Sandbox({ cgroups: false });
    expect(await sandbox.processLimitMode()).toBe(process.getuid?.() === 0 ? 'namespace count' : 'rlimit');
    // 40 processes, fewer than a fork bomb: without a hard cap only the 100 ms poll stops them,
    // and a real bomb would outrun it on a busy machine (see docs/exec.md).
    const { result } = await runIn(sandbox, { file: '/bin/bash', args: ['-c', 'for i in $(seq 1 40); do sleep 987601 & done; wait'] });
    if (process.getuid?.() === 0) expect(result.reason).toBe('process limit');
    else expect(result.code).not.toBe(0);
    const left = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && alive(Number(p)) && readCmdline(p).includes('sleep 987601'));
    for (let i = 0; i < 100 && left().length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(left()).toEqual([]);
  });

  it('shows the tree at its real path and nothing beside it', async () => {
    const root = tempDir('fm-unit-sandbox-');
    fs.mkdirSync(path.join(root, 'scope'));
    fs.writeFileSync(path.join(root, 'scope', 'in.txt'), 'inside\n');
    fs.writeFileSync(path.join(root, 'beside.txt'), 'beside\n');
    try {
      const scope = path.join(root, 'scope');
      const { lines } = await runIn(new Sandbox(), {
        file: '/bin/sh',
        args: ['-c', `cat ${scope}/in.txt; ls ${root}`],
        cwd: scope,
        tree: { root: scope, writable: false, rules: [], protectedPaths: [] },
      });
      expect(lines).toEqual(['inside', 'scope']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses, naming the package, when there is no bwrap; runs nothing unsandboxed unless told', async () => {
    const none = new Sandbox({ bwrap: null });
    expect(await none.problem()).toMatch(/bwrap was not found/);
    expect(await none.refusal()).toMatch(/install the Debian package bubblewrap.*--exec-unsandboxed/);
    await expect(none.prepare({ file: '/bin/true', args: [], cwd: '/', programs: [], network: false, limits: LIMITS })).rejects.toThrow(/bubblewrap/);
    expect(await new Sandbox({ bwrap: null, unsandboxed: true }).refusal()).toBeUndefined();
    expect(await new Sandbox({ bwrap: '/bin/false' }).problem()).toMatch(/does not work here/);
  });
});

function readCmdline(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
