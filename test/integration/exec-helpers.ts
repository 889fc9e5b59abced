/** Driving the command runner's WebSocket from tests: run a line, collect frames, check refusals. */
import { expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import type { Client, FmServer } from '../helpers/server.ts';

export interface WsResult {
  /** Every message, in order. */
  frames: string[];
  /** Output lines (all but the final status frame). */
  lines: string[];
  /** The final JSON status frame. */
  final?: { type: string; code?: number; message?: string; reason?: string; signal?: string };
  closeCode?: number;
  /** Set when the server answered the upgrade with an HTTP error instead. */
  httpStatus?: number;
  httpBody?: string;
}

export interface WsOptions {
  token?: string;
  cookie?: string;
  origin?: string | null;
  /** Called once the command is sent (e.g. to disconnect early). */
  onOpen?: (ws: WebSocket) => void;
}

export function wsUrl(server: FmServer, rawPath: string): string {
  return `${server.url.replace(/^http/, 'ws')}${rawPath}`;
}

/** Opens the runner socket on `rawPath`, sends `line`, and collects everything until the close. */
export function runCommand(server: FmServer, rawPath: string, line: string, opts: WsOptions = {}): Promise<WsResult> {
  const headers: Record<string, string> = {};
  if (opts.token) headers['X-Auth'] = opts.token;
  if (opts.cookie) headers.Cookie = `auth=${opts.cookie}`;
  const origin = opts.origin === undefined ? new URL(server.url).origin : opts.origin;
  if (origin !== null) headers.Origin = origin;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(server, rawPath), { headers });
    const result: WsResult = { frames: [], lines: [] };
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ ...result, httpStatus: res.statusCode, httpBody: body }));
    });
    ws.on('open', () => {
      ws.send(line);
      opts.onOpen?.(ws);
    });
    ws.on('message', (data) => result.frames.push(data.toString()));
    ws.on('error', (err) => {
      if (!result.httpStatus) reject(err);
    });
    ws.on('close', (code) => {
      result.closeCode = code;
      const last = result.frames[result.frames.length - 1];
      try {
        result.final = last ? JSON.parse(last) : undefined;
        result.lines = result.frames.slice(0, -1);
      } catch {
        result.lines = result.frames;
      }
      resolve(result);
    });
  });
}

export async function putSettings(admin: Client, changes: Record<string, unknown>, query = ''): Promise<Response> {
  return admin.fetch(`/api/settings${query}`, { method: 'PUT', json: changes });
}

export async function setSettings(admin: Client, changes: Record<string, unknown>): Promise<void> {
  const res = await putSettings(admin, changes);
  expect(res.status, await res.clone().text()).toBe(200);
}

export function expectRefused(r: WsResult, pattern?: RegExp): void {
  expect(r.httpStatus).toBeUndefined();
  expect(r.final?.type, JSON.stringify(r.frames)).toBe('refused');
  expect(r.closeCode).toBe(1008);
  expect(r.lines).toEqual([`Command not allowed: ${r.final!.message}`]);
  if (pattern) expect(r.final!.message).toMatch(pattern);
}

/** Polls until `check` returns true (no timing assertion: only a generous upper bound). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Pids of `sleep` processes (by any path) whose only argument is `arg`. */
export function sleepPids(arg: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0$/, '').split('\0');
      if (argv.length === 2 && path.basename(argv[0]) === 'sleep' && argv[1] === arg) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
