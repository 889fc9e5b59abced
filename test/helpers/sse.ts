/** Reads a Server-Sent Events response in a test: every event kept in order, waited for by polling. */
export interface SseEvent {
  event: string;
  data: string;
}

export interface SseReader {
  events: SseEvent[];
  /** Comment lines seen (heartbeats). */
  comments: number;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  /** Resolves with the first event (from `from` on) that passes `test`; rejects after `timeoutMs`. */
  waitFor(test: (e: SseEvent) => boolean, timeoutMs?: number, from?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `url` with fetch and parses its body as it arrives (the test's own reader: the spec's line format). */
export async function openSse(url: string, headers: Record<string, string>): Promise<{ status: number; reader?: SseReader; text?: string }> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  if (res.status !== 200) return { status: res.status, text: await res.text() };
  const events: SseEvent[] = [];
  const state = { comments: 0 };
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let cut = buf.indexOf('\n\n');
        while (cut >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) state.comments++;
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) events.push({ event, data: data.join('\n') });
          cut = buf.indexOf('\n\n');
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  const reader: SseReader = {
    events,
    get comments() {
      return state.comments;
    },
    ended,
    async waitFor(test, timeoutMs = 5000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = events.slice(from).find(test);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no such event within ${timeoutMs} ms; got ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => abort.abort(),
  };
  return { status: 200, reader };
}
