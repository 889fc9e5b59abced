/**
 * One file through tus 1.0: the creation request, then tus-js-client (loaded on first use) for
 * the chunks. A lost connection is not a failure: the transfer waits for it and goes on from the
 * offset the server kept.
 */
import type { DetailedError, Upload as TusUpload } from 'tus-js-client';
import { ApiError, ERROR_CODE_HEADER, request } from '../api/client.ts';
import { withBase } from '../config.ts';
import { DEFAULT_CHUNK_SIZE } from '../lib/chunkSize.ts';
import { describeFailure } from '../lib/errorMessage.ts';
import { baseName, encodePath } from '../lib/paths.ts';
import { isNetworkFailure, waitForConnection } from '../lib/connection.ts';
import { retryDelays } from '../lib/retry.ts';
import type { UploadEntry } from './uploadTypes.ts';

/** The short cause of a failure in the user's language, with the server's own text after it. */
export function causeOf(err: unknown, t: (key: string) => string): string {
  const res = (err as Partial<DetailedError>).originalResponse;
  if (res) return describeFailure(res.getStatus(), res.getHeader(ERROR_CODE_HEADER) ?? '', (res.getBody() ?? '').trim(), t);
  if (err instanceof ApiError) return describeFailure(err.status, err.code, err.message, t);
  return err instanceof Error ? err.message : String(err);
}

/** What one transfer needs from the manager. */
export interface SendOptions {
  signal: AbortSignal;
  /** The current token, read for every request (it may be renewed during a long upload). */
  token(): string;
  /** False once the upload session was aborted. */
  current(): boolean;
  started(upload: TusUpload): void;
  /** While paused the transfer is made but not started (resume starts it). */
  paused(): boolean;
  progress(sent: number): void;
  /** The connection was lost (true) or is back (false). */
  waiting(lost: boolean): void;
}

/** Runs `send` until it gets an answer: after a network failure it waits for the connection. */
async function untilAnswered<T>(o: SendOptions, send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (err) {
      if (!isNetworkFailure(err) || !o.current()) throw err;
      o.waiting(true);
      await waitForConnection(o.signal);
      o.waiting(false);
    }
  }
}

/** Create the upload (201 expected), then tus-js-client checks the offset and sends the chunks. */
export async function sendFile(job: UploadEntry, o: SendOptions): Promise<void> {
  const tusSettings = window.FM?.TusSettings;
  if (!tusSettings) throw new Error('Tus.io settings are not defined');
  const file = job.file!;
  const uploadPath = `/api/tus${encodePath(job.path)}`;
  const createPath = `${uploadPath}?override=${job.overwrite}`;
  const terminate = () => void request(uploadPath, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } }).catch(() => undefined);
  // The creation is never aborted half-way: an aborted POST may still reach the server after
  // the DELETE that was meant to undo it. A cancel meanwhile waits for the answer and then
  // terminates what was created.
  let res: Response;
  try {
    res = await untilAnswered(o, () =>
      request(createPath, {
        method: 'POST',
        headers: { 'Upload-Length': String(file.size), 'Tus-Resumable': '1.0.0' },
      }),
    );
  } catch (err) {
    // No answer (the connection was lost, then the cancel came): it may exist all the same.
    if (o.signal.aborted) terminate();
    throw err;
  }
  if (o.signal.aborted) {
    if (res.status === 201) terminate();
    throw new DOMException('The upload was cancelled', 'AbortError');
  }
  if (res.status !== 201) throw new Error(`Failed to create an upload: ${res.status} ${res.statusText}`);
  // An empty file is complete at its creation.
  if (file.size === 0) return;
  const base = window.location.href;
  const location = new URL(res.headers.get('Location') || withBase(uploadPath), base).href;
  const { Upload } = await import('tus-js-client');
  if (o.signal.aborted) terminate();
  if (!o.current() || o.signal.aborted) return;
  await new Promise<void>((resolve, reject) => {
    const upload = new Upload(file, {
      uploadUrl: location,
      // When the upload URL is gone (404 on HEAD), tus-js-client creates a new upload here.
      endpoint: new URL(withBase(createPath), base).href,
      chunkSize: tusSettings.chunkSize > 0 ? tusSettings.chunkSize : DEFAULT_CHUNK_SIZE,
      retryDelays: retryDelays(tusSettings.retryCount),
      parallelUploads: 1,
      storeFingerprintForResuming: false,
      metadata: { filename: baseName(job.path), filetype: file.type },
      // The token may be renewed during a long upload: read it for every request.
      onBeforeRequest: (req) => {
        // Nothing goes out after a cancel: tus-js-client's abort does not stop a HEAD that has
        // answered 404 (the upload just terminated) from creating the upload anew at `endpoint`.
        if (o.signal.aborted) throw new DOMException('The upload was cancelled', 'AbortError');
        const token = o.token();
        if (token) req.setHeader('X-Auth', token);
      },
      onProgress: (sent) => o.progress(sent),
      onSuccess: () => resolve(),
      onError: (err) => {
        if (!isNetworkFailure(err) || !o.current()) {
          reject(err);
          return;
        }
        // tus-js-client gave up (offline, or its retries ran out): wait, then ask the server for the offset.
        o.waiting(true);
        waitForConnection(o.signal).then(() => {
          o.waiting(false);
          if (!o.paused()) upload.start();
        }, reject);
      },
    });
    // tus-js-client's abort() settles nothing: a cancel ends the transfer here, and terminates the
    // upload on the server itself (the manager only stops tus-js-client, whose abort(true) skips
    // the DELETE while it is still opening the file).
    o.signal.addEventListener(
      'abort',
      () => {
        terminate();
        reject(new DOMException('The upload was cancelled', 'AbortError'));
      },
      { once: true },
    );
    o.started(upload);
    if (!o.paused()) upload.start();
  });
}
