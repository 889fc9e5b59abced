/**
 * The drop page's uploads: files picked or dropped are queued and sent one at a time
 * (actions/dropUpload.ts); each keeps its progress and outcome for the list. When one lands,
 * the link's info is fetched again so the room left is current.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { DropFailure, sendDrop } from '../../actions/dropUpload.ts';
import type { PickedFile } from '../../lib/uploads.ts';

export type DropStatus = 'queued' | 'sending' | 'done' | 'failed';

export interface DropItem {
  id: number;
  path: string;
  size: number;
  sent: number;
  status: DropStatus;
  /** Resumed from an earlier visit. */
  resumed: boolean;
  failure?: DropFailure;
}

interface Queued extends DropItem {
  file: File;
}

export function useDrops(hash: string, token: string): { items: DropItem[]; add(picked: PickedFile[]): void; retry(id: number): void } {
  const queryClient = useQueryClient();
  const [items, setItems] = useState<Queued[]>([]);
  const nextId = useRef(1);
  const busy = useRef(false);
  // Leaving the page stops what is being sent (tus-js-client keeps its URL for a later visit).
  const stop = useRef<AbortController | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    stop.current = controller;
    return () => controller.abort();
  }, []);

  const update = useCallback((id: number, patch: Partial<DropItem>) => setItems((list) => list.map((i) => (i.id === id ? { ...i, ...patch } : i))), []);

  // Sends the first queued file whenever none is being sent.
  useEffect(() => {
    const next = items.find((i) => i.status === 'queued');
    const signal = stop.current?.signal;
    if (busy.current || !next || !signal) return;
    busy.current = true;
    update(next.id, { status: 'sending' });
    sendDrop({
      hash,
      token,
      file: next.file,
      path: next.path,
      signal,
      progress: (sent) => update(next.id, { sent }),
      resumed: () => update(next.id, { resumed: true }),
    })
      .then(
        () => update(next.id, { status: 'done', sent: next.size }),
        (err: unknown) => {
          if (err instanceof DOMException && err.name === 'AbortError') return;
          update(next.id, { status: 'failed', failure: err instanceof DropFailure ? err : new DropFailure(0, '', String(err)) });
        },
      )
      .finally(() => {
        busy.current = false;
        void queryClient.invalidateQueries({ queryKey: ['public-share', hash] });
        // Wake the effect for the next file.
        setItems((list) => [...list]);
      });
  }, [items, hash, token, update, queryClient]);

  const add = useCallback((picked: PickedFile[]) => {
    const added = picked.map((p) => ({
      id: nextId.current++,
      path: p.relativePath,
      size: p.file.size,
      sent: 0,
      status: 'queued' as const,
      resumed: false,
      file: p.file,
    }));
    setItems((list) => [...list, ...added]);
  }, []);

  // Sent again from where the server's copy stopped (tus-js-client finds the upload it made).
  const retry = useCallback((id: number) => update(id, { status: 'queued', failure: undefined }), [update]);

  return { items, add, retry };
}
