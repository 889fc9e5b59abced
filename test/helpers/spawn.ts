/**
 * Runs the built `fm serve` (bin/fm.js) as a subprocess on port 0 with a temporary root and
 * database. Only for tests where the process is the point: flags parsed from the command line
 * or the environment, what it prints, exit codes, signals, a crash (`kill -9`) and the next
 * start. Everything else uses the in-process `startFm` of server.ts. The vitest globalSetup
 * rebuilds dist/ first when src/, web/ or config/ changed since the last build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FM_BIN, tempDir, type FmServer, type StartOptions } from './server.ts';
import { testDatabase } from './postgres.ts';

export interface SpawnedFm extends FmServer {
  child: ChildProcess;
  /** SIGKILL (simulates a crash) and wait until the process is gone. */
  kill(): Promise<void>;
}

export interface SpawnOptions extends Omit<StartOptions, 'diskSpace' | 'uploadSync'> {
  /** Extra environment of the process (FM_* variables, PATH). */
  env?: Record<string, string>;
}

const started = new Set<SpawnedFm>();
process.on('exit', () => {
  for (const s of started) s.child.kill('SIGKILL');
});

/** Runs `fm serve` and waits for its `listening on` line. */
export async function spawnFm(opts: SpawnOptions = {}): Promise<SpawnedFm> {
  const home = opts.home ?? tempDir();
  const root = opts.root ?? path.join(home, 'root');
  fs.mkdirSync(root, { recursive: true });
  const dbFile = await testDatabase(home, opts.sqlite);
  const child = spawn(process.execPath, [FM_BIN, 'serve', root, '--port', '0', '--database', dbFile, ...(opts.args ?? [])], {
    env: { ...process.env, XDG_DATA_HOME: path.join(home, 'data'), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fm serve did not start:\n${out}`)), 20_000);
    const onData = () => {
      const m = /listening on (\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fm serve exited with ${code}:\n${out}`));
    });
  });
  const adminPassword = /password: (\S+)/.exec(out)?.[1] ?? '';
  // 'close' comes after 'exit' once the output pipes are drained: output() is then complete.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const server: SpawnedFm = {
    url,
    root,
    home,
    dbFile,
    adminPassword,
    child,
    pid: child.pid!,
    output: () => out,
    async stop() {
      started.delete(server);
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (!opts.keep && !opts.home) fs.rmSync(home, { recursive: true, force: true });
      return code;
    },
    async kill() {
      started.delete(server);
      child.kill('SIGKILL');
      await exited;
    },
  };
  started.add(server);
  return server;
}
