/**
 * Shared pieces of the benchmark suite: start fm and nginx on 127.0.0.1, sample memory, and
 * summarise timings. Every figure is compared against a baseline measured in the same run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FM_BIN = path.join(PROJECT, 'bin', 'fm.js');
/**
 * The benchmark's own XDG cache folder, so fm's code cache is the one this build wrote: in the
 * shared ~/.cache, other builds' starts (tests, other worktrees) evict it, and a start without
 * it compiles the whole bundle (~35 ms more).
 */
export const BENCH_CACHE = path.join(PROJECT, 'bench', '.cache');

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export async function timeIt(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export async function repeat(n: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await timeIt(fn));
  return out;
}

/** Resident and peak resident memory of a process, in MiB (from /proc). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** Samples a process's RSS every `ms` until stopped; returns the peak in MiB. */
export function sampleRss(pid: number, ms = 50): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, memoryOf(pid).rss);
    } catch {
      // process gone
    }
  }, ms);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, memoryOf(pid).rss);
      } catch {
        // process gone
      }
      return peak;
    },
  };
}

export interface BenchFm {
  url: string;
  token: string;
  /** The admin's password (WebDAV signs in with it). */
  password: string;
  child: ChildProcess;
  startupMs: number;
  /** What fm printed so far (standard output and error). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the built fm on a folder with a fresh database and logs in as admin; `nodeArgs` go to Node (the soak's `--inspect`). */
export async function startFm(root: string, extraArgs: string[] = [], nodeArgs: string[] = []): Promise<BenchFm> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-'));
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [...nodeArgs, FM_BIN, 'serve', root, '--port', '0', '--log', 'off', '--database', path.join(home, 'fm.db'), ...extraArgs],
    {
      env: { ...process.env, XDG_DATA_HOME: path.join(home, 'data'), XDG_CACHE_HOME: BENCH_CACHE },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)\n/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`fm exited with ${code}: ${out}`)));
  });
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6;
  const password = /password: (\S+)/.exec(out)?.[1] ?? '';
  const res = await fetch(`${url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password }) });
  const token = await res.text();
  return {
    url,
    token,
    password,
    child,
    startupMs,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface Nginx {
  url: string;
  pid: number;
  stop(): void;
}

export interface NginxOptions {
  /** The directives of `location /` (default: autoindex JSON on folders). */
  location?: string;
  /** More directives in the http block. */
  http?: string;
}

/** Starts Debian's nginx on 127.0.0.1 serving `root` (autoindex JSON on folders unless told), with its own temp config. */
export async function startNginx(root: string, opts: NginxOptions = {}): Promise<Nginx> {
  const bin = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
  if (!bin) throw new Error('nginx is not installed (apt-get install -y nginx)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-nginx-'));
  fs.chmodSync(dir, 0o755); // its workers (nobody, when started by root) write request bodies under it
  const port = 20000 + Math.floor(Math.random() * 20000);
  const conf = `
worker_processes 2;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
daemon on;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${opts.http ?? ''}
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { ${opts.location ?? 'autoindex on; autoindex_format json;'} }
  }
}`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const r = spawnSync(bin, ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nginx failed: ${r.stderr}`);
  const pid = Number(fs.readFileSync(path.join(dir, 'nginx.pid'), 'utf8'));
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    stop() {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // already gone
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs curl and returns its download speed in MB/s (10^6 bytes). */
export function curlSpeed(url: string, headers: Record<string, string> = {}): number {
  const args = ['-s', '-o', '/dev/null', '-w', '%{speed_download} %{http_code}'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const r = spawnSync('curl', [...args, url], { encoding: 'utf8' });
  const [speed, code] = r.stdout.trim().split(' ');
  if (code !== '200') throw new Error(`curl ${url}: HTTP ${code}`);
  return Number(speed) / 1e6;
}

export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '–';
}

export function have(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}
