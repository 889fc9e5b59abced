/**
 * DEP: flaws that came in through a dependency. filebrowser's GHSA-6jqf-mv7m-3q7p was HTTP
 * request smuggling through its HTTP stack; fm's stack is Node's http parser under Koa. These
 * send the classic desynchronisation shapes over a raw socket and check that each is refused
 * as a whole (one 400, connection closed) and never answered as two requests. Pins: every
 * dependency is an exact version, and the lockfile holds that version.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, startFm, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
beforeAll(async () => {
  fm = await startFm();
});
afterAll(async () => {
  await fm?.stop();
});

/** Sends raw bytes on one connection and collects everything until the server closes it. */
function exchange(raw: string): Promise<string> {
  const url = new URL(fm.url);
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed connection would end the exchange after the first answer.
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(raw));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

const statuses = (out: string) => [...out.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
const smuggled = 'GET /api/users HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('DEP: request smuggling shapes are refused (GHSA-6jqf-mv7m-3q7p)', () => {
  it('Content-Length together with Transfer-Encoding: chunked', async () => {
    const body = `0\r\n\r\n${smuggled}`;
    const out = await exchange(`POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`);
    expect(statuses(out)).toEqual([400]);
  });

  it('two different Content-Length headers', async () => {
    const out = await exchange(
      `POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nContent-Length: ${4 + smuggled.length}\r\n\r\nabcd${smuggled}`,
    );
    expect(statuses(out)).toEqual([400]);
  });

  it('an obfuscated Transfer-Encoding', async () => {
    for (const te of ['chunked, identity', ' chunked', 'xchunked', 'chunked\r\n x']) {
      const out = await exchange(`POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: ${te}\r\nContent-Length: 5\r\n\r\n0\r\n\r\n${smuggled}`);
      expect(statuses(out), te).toEqual([400]);
    }
  });

  it('a bad chunk size', async () => {
    const out = await exchange(`POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nabc\r\n0\r\n\r\n${smuggled}`);
    expect(statuses(out)).toEqual([400]);
  });

  it('a well-formed pipelined pair is answered as exactly two requests', async () => {
    const out = await exchange(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(statuses(out)).toEqual([200, 200]);
  });
});

describe('DEP: dependencies are pinned', () => {
  it('every dependency is an exact version and the lockfile installs that version', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      for (const [name, spec] of Object.entries(pkg[field] ?? {})) {
        expect(spec, `${name} in ${field}`).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
        expect(lock.packages[`node_modules/${name}`]?.version, `${name} in package-lock.json`).toBe(spec);
      }
    }
  });
});
