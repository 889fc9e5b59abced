/**
 * The audit log's cost (issue 19: "recording adds ≤ 5 % to the listing and download figures"):
 * the same fm, in this process, with the audit log recording and with `record` made a no-op,
 * measured alternately in one run. Downloads by curl (another process, so the server's own
 * event loop is what is measured); listings and small-file downloads by keep-alive requests.
 * Listings are not content reads and record nothing: what they pay is the middleware's check.
 * A small-file download records one entry each: that row shows what batching costs.
 * The score is this process's CPU time per run (server, plus the client loop for the request
 * rows, the same for both): on a shared machine it is far steadier than wall-clock speed, which
 * the table shows beside it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PROJECT, fmt, median } from './lib.ts';
import type { Row } from './search.ts';

interface Served {
  url: string;
  token: string;
  stop(): Promise<void>;
}

/** fm assembled as `fm serve` does, in this process; `audit: false` turns recording into a no-op. */
async function serveInProcess(root: string, audit: boolean): Promise<Served> {
  const { openDatabase } = await import('../src/storage/db.ts');
  const { createServices, shutdownServices } = await import('../src/services/index.ts');
  const setup = await import('../src/services/setup.ts');
  const { startServer } = await import('../src/server/start.ts');
  const { loadWebBundle } = await import('../src/server/routes/static.ts');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-audit-'));
  const db = await openDatabase(path.join(home, 'fm.db'));
  const quiet = { info() {}, warn() {}, error() {} };
  const services = createServices(db, {
    root: fs.realpathSync(root),
    tokenLifetime: 7200,
    auth: { noauth: false, authHeader: '', trustedProxies: [], signupLimit: 10 },
    log: quiet,
    dataDir: home,
  });
  if (!audit) services.audit.record = () => {};
  await setup.ensureSettings(services.repos);
  const admin = await setup.ensureAdmin(services.repos, services.users);
  const running = await startServer(services, {
    address: '127.0.0.1',
    port: 0,
    baseURL: '',
    version: 'bench',
    web: loadWebBundle(path.join(PROJECT, 'dist', 'web')),
  });
  const res = await fetch(`${running.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: admin!.password }) });
  return {
    url: running.url,
    token: await res.text(),
    async stop() {
      await running.close();
      await shutdownServices(services);
      await db.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** curl's download speed in MB/s, without blocking this process (the server runs in it). */
function curlSpeed(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-s', '-o', '/dev/null', '-w', '%{speed_download} %{http_code}', '-H', `X-Auth: ${token}`, url]);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('error', reject);
    child.once('close', () => {
      const [speed, code] = out.trim().split(' ');
      if (code !== '200') reject(new Error(`curl ${url}: HTTP ${code}`));
      else resolve(Number(speed) / 1e6);
    });
  });
}

/** `count` GETs one after another on one keep-alive connection; answers requests per second. */
async function requestsPerSecond(url: string, token: string, count: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers: { 'X-Auth': token } }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
          res.resume().once('end', resolve);
        })
        .once('error', reject);
    });
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await get();
  agent.destroy();
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

export async function benchAudit(opts: { dataDir: string; downloadBytes: number; runs: number; log: (line: string) => void }): Promise<Row[]> {
  const root = path.join(opts.dataDir, 'audit');
  fs.mkdirSync(path.join(root, 'folder'), { recursive: true });
  const big = path.join(root, 'big.bin');
  // Sparse: the disk is not what is measured, the server's path through the audit log is.
  if (!fs.existsSync(big) || fs.statSync(big).size !== opts.downloadBytes) {
    fs.writeFileSync(big, '');
    fs.truncateSync(big, opts.downloadBytes);
  }
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, 'folder', `f${i}.txt`), 'x'.repeat(4096));
  const on = await serveInProcess(root, true);
  const off = await serveInProcess(root, false);
  const workloads = {
    dl: (s: Served) => curlSpeed(`${s.url}/api/raw/big.bin`, s.token),
    list: (s: Served) => requestsPerSecond(`${s.url}/api/resources/folder/`, s.token, 200),
    small: (s: Served) => requestsPerSecond(`${s.url}/api/raw/folder/f1.txt`, s.token, 200),
  };
  type Name = keyof typeof workloads;
  const names = Object.keys(workloads) as Name[];
  const samples: Record<Name, { on: number[]; off: number[]; ratios: number[]; cpuRatios: number[] }> = {
    dl: { on: [], off: [], ratios: [], cpuRatios: [] },
    list: { on: [], off: [], ratios: [], cpuRatios: [] },
    small: { on: [], off: [], ratios: [], cpuRatios: [] },
  };
  /** The workload's figure and the CPU microseconds this process spent on it. */
  const measure = async (name: Name, s: Served) => {
    const cpu = process.cpuUsage();
    const value = await workloads[name](s);
    const used = process.cpuUsage(cpu);
    return { value, cpu: used.user + used.system };
  };
  try {
    // A warm-up round, then back-to-back on/off pairs in alternating order: the machine is
    // shared, so each pair's ratio cancels the load of its moment; the median ratio is reported.
    for (const name of names) for (const s of [on, off]) await workloads[name](s);
    for (let run = 0; run < opts.runs; run++) {
      for (const name of names) {
        const pairs = name === 'dl' ? 2 : 5;
        for (let p = 0; p < pairs; p++) {
          const onFirst = (run + p) % 2 === 0;
          const first = await measure(name, onFirst ? on : off);
          const second = await measure(name, onFirst ? off : on);
          const [withAudit, without] = onFirst ? [first, second] : [second, first];
          samples[name].on.push(withAudit.value);
          samples[name].off.push(without.value);
          samples[name].ratios.push(withAudit.value / without.value);
          // The same work both times: CPU time off / on is the speed ratio the CPU allows.
          samples[name].cpuRatios.push(without.cpu / withAudit.cpu);
        }
      }
      opts.log(`   round ${run + 1}: download ${fmt(samples.dl.on.at(-1)!, 0)} / ${fmt(samples.dl.off.at(-1)!, 0)} MB/s (on/off)`);
    }
  } finally {
    await on.stop();
    await off.stop();
  }
  const row = (workload: string, unit: string, name: Name): Row => {
    const s = samples[name];
    const cpuRatio = median(s.cpuRatios);
    return {
      workload,
      fm: `${fmt(median(s.on), 0)} ${unit}`,
      baseline: `audit off ${fmt(median(s.off), 0)} ${unit}`,
      ratio: `CPU ${fmt(cpuRatio, 3)}× (target ≥ 0.95)`,
      score: { value: cpuRatio, target: 0.95, better: 'higher' },
      note: `medians of ${s.ratios.length} back-to-back on/off pairs; wall-clock ratio ${fmt(median(s.ratios), 3)}×, load average ${os.loadavg()[0].toFixed(1)}`,
    };
  };
  return [
    row(`download ${fmt(opts.downloadBytes / 1024 ** 3, 2)} GiB (GET /api/raw) with the audit log`, 'MB/s', 'dl'),
    row('list a 100-entry folder (GET /api/resources) with the audit log (not recorded), 200 requests', 'req/s', 'list'),
    row('download a 4 KiB file (GET /api/raw) with the audit log (one entry each), 200 requests', 'req/s', 'small'),
  ];
}
