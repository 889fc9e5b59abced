/**
 * The V8 inspector of a benchmarked fm (started with `--inspect=127.0.0.1:0`): its heap after
 * a full collection, and heap snapshots, read from outside so fm's code carries no probe.
 */
import fs from 'node:fs';
import WebSocket from 'ws';

interface Reply {
  id?: number;
  method?: string;
  params?: { chunk?: string };
  result?: { usedSize?: number };
  error?: { message: string };
}

export interface Inspector {
  /** Forces a full garbage collection and returns the heap's used bytes after it, in MiB. */
  heapAfterGc(): Promise<number>;
  /** Writes a heap snapshot (after a full collection) to `file`. */
  snapshot(file: string): Promise<void>;
  close(): void;
}

/** The inspector's address from the process's standard error ("Debugger listening on ws://…"). */
export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
}

export async function connectInspector(url: string): Promise<Inspector> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 1;
  const pending = new Map<number, { resolve(r: Reply): void; reject(e: Error): void }>();
  let onChunk: ((chunk: string) => void) | undefined;
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as Reply;
    if (msg.method === 'HeapProfiler.addHeapSnapshotChunk') onChunk?.(msg.params?.chunk ?? '');
    if (msg.id === undefined) return;
    const waiter = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) waiter?.reject(new Error(msg.error.message));
    else waiter?.resolve(msg);
  });
  const call = (method: string, params: object = {}): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async heapAfterGc() {
      await call('HeapProfiler.collectGarbage');
      const r = await call('Runtime.getHeapUsage');
      return (r.result?.usedSize ?? Number.NaN) / 1024 ** 2;
    },
    async snapshot(file) {
      const out = fs.createWriteStream(file);
      onChunk = (chunk) => out.write(chunk);
      try {
        await call('HeapProfiler.enable');
        await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      } finally {
        onChunk = undefined;
        await new Promise((r) => out.end(r));
      }
    },
    close() {
      ws.close();
    },
  };
}
