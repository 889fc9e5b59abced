/**
 * One file into an upload-only (drop) link through tus-js-client: it creates the upload at
 * `/api/public/tus/{hash}/{name}` and sends the chunks. The upload URL is remembered in
 * localStorage under tus-js-client's fingerprint of the file and the link (name, type, size,
 * modification time, endpoint), so the same file dropped again after a reload resumes from the
 * offset the server kept instead of starting over.
 */
import type { DetailedError } from 'tus-js-client';
import { withBase } from '../config.ts';
import { DEFAULT_CHUNK_SIZE } from '../lib/chunkSize.ts';
import { encodePath } from '../lib/paths.ts';
import { retryDelays } from '../lib/retry.ts';

/** Why a drop failed: the server's status and machine code (X-Fm-Error) when it answered. */
export class DropFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface DropSend {
  hash: string;
  /** The link's token (a link with a password), '' otherwise. */
  token: string;
  file: File;
  /** Path under the shared folder (`a.txt`, `photos/b.jpg` for a folder drop). */
  path: string;
  signal: AbortSignal;
  progress(sent: number, total: number): void;
  /** The upload goes on from what an earlier visit sent. */
  resumed(): void;
}

function failureOf(err: unknown): DropFailure {
  const res = (err as Partial<DetailedError>).originalResponse;
  if (!res) return new DropFailure(0, 'connection', err instanceof Error ? err.message : String(err));
  return new DropFailure(res.getStatus(), res.getHeader('X-Fm-Error') ?? '', (res.getBody() ?? '').trim());
}

/** Sends one file; resolves when it is in place, rejects with a DropFailure (or an AbortError). */
export async function sendDrop(o: DropSend): Promise<void> {
  const { Upload } = await import('tus-js-client');
  const tusSettings = window.FM?.TusSettings;
  const query = o.token ? `?token=${encodeURIComponent(o.token)}` : '';
  const endpoint = new URL(withBase(`/api/public/tus/${encodeURIComponent(o.hash)}${encodePath(`/${o.path}`)}${query}`), window.location.href).href;
  await new Promise<void>((resolve, reject) => {
    const upload = new Upload(o.file, {
      endpoint,
      chunkSize: tusSettings && tusSettings.chunkSize > 0 ? tusSettings.chunkSize : DEFAULT_CHUNK_SIZE,
      retryDelays: retryDelays(tusSettings?.retryCount ?? 3),
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      metadata: { filename: o.file.name, filetype: o.file.type },
      onProgress: (sent, total) => o.progress(sent, total),
      onSuccess: () => resolve(),
      onError: (err) => reject(failureOf(err)),
    });
    o.signal.addEventListener(
      'abort',
      () => {
        void upload.abort(true);
        reject(new DOMException('The upload was cancelled', 'AbortError'));
      },
      { once: true },
    );
    void upload.findPreviousUploads().then(
      (previous) => {
        const last = previous.sort((a, b) => (a.creationTime < b.creationTime ? 1 : -1))[0];
        if (last) {
          upload.resumeFromPreviousUpload(last);
          o.resumed();
        }
        if (!o.signal.aborted) upload.start();
      },
      (err: unknown) => reject(failureOf(err)),
    );
  });
}
