import { describe, expect, it } from 'vitest';
import { type ConnectionWatch, isNetworkFailure, waitForConnection } from '../../web/lib/connection.ts';

/** A window stand-in: `online` events on demand, navigator.onLine as set. */
function watch(onLine: boolean): ConnectionWatch & { goOnline(): void; listeners(): number } {
  const target = new EventTarget();
  let count = 0;
  return {
    navigator: { onLine },
    addEventListener: (type, l) => {
      count++;
      target.addEventListener(type, l);
    },
    removeEventListener: (type, l) => {
      count--;
      target.removeEventListener(type, l);
    },
    goOnline: () => target.dispatchEvent(new Event('online')),
    listeners: () => count,
  };
}

describe('isNetworkFailure', () => {
  it('is true for a request without an answer, false for an answer or anything else', () => {
    const noAnswer = Object.assign(new Error('tus: failed to upload chunk, caused by [object ProgressEvent]'), { originalRequest: {}, originalResponse: null });
    const answered = Object.assign(new Error('tus: unexpected response'), { originalRequest: {}, originalResponse: { getStatus: () => 500 } });
    const statusZero = Object.assign(new Error('tus'), { originalRequest: {}, originalResponse: { getStatus: () => 0 } });
    const connection = Object.assign(new Error('000 No connection'), { name: 'ConnectionError' });
    expect(isNetworkFailure(noAnswer)).toBe(true);
    expect(isNetworkFailure(statusZero)).toBe(true);
    expect(isNetworkFailure(connection)).toBe(true);
    expect(isNetworkFailure(answered)).toBe(false);
    expect(isNetworkFailure(new Error('Tus.io settings are not defined'))).toBe(false);
    expect(isNetworkFailure('offline')).toBe(false);
  });
});

describe('waitForConnection', () => {
  it('waits offline until the online event, and lets go of its listener', async () => {
    const w = watch(false);
    let settled = false;
    const wait = waitForConnection(new AbortController().signal, w, 10).then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(settled).toBe(false);
    w.goOnline();
    await wait;
    expect(w.listeners()).toBe(0);
  });

  it('tries again after the delay when the browser believes it is online', async () => {
    const w = watch(true);
    await waitForConnection(new AbortController().signal, w, 5);
    expect(w.listeners()).toBe(0);
  });

  it('rejects with an AbortError when cancelled, already or while waiting', async () => {
    const before = new AbortController();
    before.abort();
    await expect(waitForConnection(before.signal, watch(false))).rejects.toMatchObject({ name: 'AbortError' });
    const w = watch(false);
    const during = new AbortController();
    const wait = waitForConnection(during.signal, w);
    during.abort();
    await expect(wait).rejects.toMatchObject({ name: 'AbortError' });
    expect(w.listeners()).toBe(0);
  });
});
