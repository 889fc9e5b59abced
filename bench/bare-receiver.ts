/**
 * A bare Node receiver of the tus rows' uploads (bench/upload.ts): the ceiling of what an HTTP
 * server in Node reaches on this machine, with the client on the same 2 cores. `http.createServer`
 * answering the bench client's POST (201) and PATCHes (204, the body piped into the file at its
 * offset by `fs.createWriteStream`), and on the last PATCH an fsync of the file and its folder,
 * what the write + fsync baseline does. No authentication, no upload record, no rules, no
 * durability of an acknowledged offset before the end: everything fm does besides is the gap.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

const SCRIPT = `
const http = require('node:http'); const fs = require('node:fs'); const path = require('node:path');
const [dir, port] = [process.argv[1], Number(process.argv[2])];
const lengths = new Map();
http.createServer((req, res) => {
  const file = path.join(dir, path.basename(req.url.split('?')[0]));
  if (req.method === 'POST') {
    fs.closeSync(fs.openSync(file, 'w'));
    lengths.set(file, Number(req.headers['upload-length']));
    res.writeHead(201, { Location: req.url.split('?')[0], 'Tus-Resumable': '1.0.0' }).end();
    return;
  }
  const offset = Number(req.headers['upload-offset']);
  const end = offset + Number(req.headers['content-length']);
  const out = fs.createWriteStream(file, { flags: 'r+', start: offset, highWaterMark: 1 << 20 });
  req.pipe(out).on('finish', () => {
    if (end === lengths.get(file)) {
      const fd = fs.openSync(file, 'r'); fs.fsyncSync(fd); fs.closeSync(fd);
      const d = fs.openSync(dir, 'r'); fs.fsyncSync(d); fs.closeSync(d);
    }
    res.writeHead(204, { 'Upload-Offset': String(end), 'Tus-Resumable': '1.0.0' }).end();
  });
}).listen(port, '127.0.0.1');`;

export interface BareReceiver {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Starts the receiver in a process of its own, writing into `dir`. */
export async function startBareReceiver(dir: string): Promise<BareReceiver> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT, dir, String(port)], { stdio: 'ignore' });
  for (let i = 0; !(await listening(port)); i++) {
    if (child.exitCode !== null || i > 200) throw new Error('the bare Node receiver did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
