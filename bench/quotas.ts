/**
 * What a quota costs a write: small-file PUTs by a user with a quota (the scope's real path, the
 * index's figures, the reservation) against the same PUTs by a user without one, on the same
 * server in the same run, PUT by PUT in alternation. `npm run bench -- --only quota`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, median, startFm } from './lib.ts';
import type { Row } from './search.ts';

export interface QuotaBenchOptions {
  /** PUTs per user, in `rounds` (default 300 × 6). */
  files?: number;
  rounds?: number;
  /** Bytes per file (default 4 KiB). */
  size?: number;
}

export async function benchQuota(o: QuotaBenchOptions = {}): Promise<Row[]> {
  const files = o.files ?? 300;
  const rounds = o.rounds ?? 6;
  const body = new Uint8Array(o.size ?? 4096);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-quota-'));
  for (const d of ['limited', 'free']) fs.mkdirSync(path.join(root, d));
  const fm = await startFm(root);
  try {
    const api = (p: string, init: RequestInit & { token?: string } = {}) =>
      fetch(`${fm.url}${p}`, { ...init, headers: { 'X-Auth': init.token ?? fm.token, ...(init.headers as Record<string, string>) } });
    const tokens: Record<string, string> = {};
    for (const [name, quota] of [
      ['limited', 1024 ** 4],
      ['free', 0],
    ] as const) {
      const password = `${name}-bench-password-1`;
      const data = { username: name, password, scope: `/${name}`, quota, perm: { create: true, modify: true } };
      const res = await api('/api/users', { method: 'POST', body: JSON.stringify({ what: 'user', which: [], current_password: fm.password, data }) });
      if (res.status !== 201) throw new Error(`creating ${name}: ${res.status} ${await res.text()}`);
      tokens[name] = await (await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: name, password }) })).text();
    }
    while (!((await (await api('/api/search-status')).json()) as { ready: boolean }).ready) await new Promise((r) => setTimeout(r, 50));

    // PUT by PUT, alternating who goes first, so both users see the same load (the machine is shared).
    const perPut: Record<string, number[]> = { limited: [], free: [] };
    for (let i = 0; i < files * rounds; i++) {
      for (const name of i % 2 ? ['free', 'limited'] : ['limited', 'free']) {
        const started = process.hrtime.bigint();
        const res = await api(`/api/resources/f${i}.bin`, { method: 'PUT', body, token: tokens[name] });
        if (res.status !== 200) throw new Error(`PUT as ${name}: ${res.status} ${await res.text()}`);
        perPut[name].push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
    const limited = median(perPut.limited);
    const free = median(perPut.free);
    return [
      {
        workload: `${files * rounds} PUTs of ${fmt(body.length / 1024, 0)} KiB by a user with a quota, each paired with one by a user without (medians)`,
        fm: `${fmt(limited, 2)} ms per PUT`,
        baseline: `the same without a quota: ${fmt(free, 2)} ms`,
        ratio: `${fmt(limited / free, 2)}× (target ≤ 1.1×)`,
        score: { value: limited / free, target: 1.1, better: 'lower' },
      },
    ];
  } finally {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
