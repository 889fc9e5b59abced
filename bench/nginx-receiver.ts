/**
 * nginx as a receiver of the tus rows' bytes (bench/upload.ts, bench/transfers.ts): what an HTTP
 * server that is not Node reaches on this machine, with the same bench client on the same 2 cores.
 * nginx's dav module takes a PUT, writes its body into a temp file on the same disk as it arrives
 * (`client_body_temp_path`) and renames it into place; the bench then fsyncs the file and its
 * folder, what the write + fsync baseline does and what a finished tus upload promises.
 *
 * One streamed PUT of the whole upload, written by the client in the same 10 MiB pieces the tus
 * client sends as PATCHes: nginx's dav module has no partial PUT, so the tus chunking would mean
 * one file per chunk (measured by hand: docs/decisions.md, "Performance: tus uploads, the
 * machine's ceiling") instead of the one file the baseline and fm end with.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import { once } from 'node:events';
import path from 'node:path';
import { startNginx, type Nginx } from './lib.ts';
import { type AlternatingResult, alternate, type RoundResult } from './rounds.ts';

/**
 * Bytes nginx gathers from the socket before each write to its temp file: 1 MiB, the size of
 * fm's batched writes (append.ts). Its default, 16 KiB, made 64k writes per GiB: 0.75 s/GiB of
 * CPU instead of 0.35-0.42, and 0.69x the baseline instead of 0.89x (decisions.md).
 */
const BODY_BUFFER = '1m';

/** Starts nginx on 127.0.0.1 taking PUTs into `dir` (made writable for its workers). */
export async function startNginxReceiver(dir: string): Promise<Nginx> {
  // nginx's workers run as nobody when started by root: they need to reach and write `dir`.
  for (let d = path.dirname(dir); d !== path.dirname(d) && (fs.statSync(d).mode & 0o005) !== 0o005; d = path.dirname(d)) fs.chmodSync(d, 0o755);
  fs.chmodSync(dir, 0o777);
  return startNginx(dir, {
    http: `client_max_body_size 0; client_body_buffer_size ${BODY_BUFFER};`,
    location: 'dav_methods PUT; dav_access user:rw group:r all:r;',
  });
}

async function fsyncPaths(files: string[]): Promise<void> {
  for (const f of files) {
    const fh = await fsp.open(f, 'r');
    await fh.sync();
    await fh.close();
  }
}

/**
 * One PUT of `size` bytes sent in `buf`-sized writes (honouring backpressure), then an fsync of
 * the file and its folder; returns the milliseconds from the first byte to the end of the fsyncs.
 */
export async function putWhole(url: string, dir: string, name: string, buf: Buffer, size: number): Promise<number> {
  const base = new URL(url);
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method: 'PUT', path: `/${name}`, headers: { 'Content-Length': String(size) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 || res.statusCode === 204 ? resolve() : reject(new Error(`PUT answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    const send = async () => {
      for (let off = 0; off < size; off += buf.length) {
        if (!req.write(size - off >= buf.length ? buf : buf.subarray(0, size - off))) await once(req, 'drain');
      }
      req.end();
    };
    send().catch(reject);
  });
  await fsyncPaths([path.join(dir, name), dir]);
  return performance.now() - started;
}

/** CPU seconds (user + system) nginx's workers have used (the master only waits). */
function workersCpu(master: number): number {
  const children = fs.readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  let ticks = 0;
  for (const pid of children) {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100; // USER_HZ
}

export interface NginxRounds extends AlternatingResult {
  /** nginx's CPU seconds per GiB received, each round. */
  cpuPerGiB: number[];
}

/**
 * `rounds` rounds of `names.length` PUTs at once of `each` bytes (`putWhole`, one connection
 * each) into nginx, alternating with `baseline` (bench/rounds.ts): the tus rows' rounds with
 * nginx in fm's place. MB/s of a round: all bytes over the time until the last fsync ended.
 */
export async function runNginxRounds(
  work: string,
  names: string[],
  each: number,
  buf: Buffer,
  rounds: number,
  baseline: () => Promise<RoundResult>,
  log: (line: string) => void = () => {},
): Promise<NginxRounds> {
  const dir = path.join(work, 'nginx');
  fs.mkdirSync(dir, { recursive: true });
  const nginx = await startNginxReceiver(dir);
  const cpuPerGiB: number[] = [];
  const gib = (each * names.length) / 1024 ** 3;
  try {
    const measured = await alternate(
      rounds,
      baseline,
      async () => {
        const cpu = workersCpu(nginx.pid);
        const started = performance.now();
        await Promise.all(names.map((n) => putWhole(nginx.url, dir, n, buf, each)));
        const ms = performance.now() - started;
        cpuPerGiB.push((workersCpu(nginx.pid) - cpu) / gib);
        const files = names.map((n) => path.join(dir, n));
        for (const f of files) if (fs.statSync(f).size !== each) throw new Error(`${f} has the wrong size`);
        return { mbps: (each * names.length) / 1e6 / (ms / 1000), files };
      },
      (line) => log(line.replace(' fm ', ' nginx ')),
    );
    return { ...measured, cpuPerGiB };
  } finally {
    nginx.stop();
  }
}
