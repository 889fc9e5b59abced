/** Incremental NDJSON parsing: lines as they arrive over a stream (search results, spec §4 "Search"). */

/** Feeds text chunks, returns every complete JSON line; empty lines (heartbeats) are skipped. */
export class NdjsonParser<T> {
  private rest = '';

  /** Parses the complete lines of `chunk` (with what was left from the previous chunk). */
  push(chunk: string): T[] {
    this.rest += chunk;
    const lines = this.rest.split('\n');
    this.rest = lines.pop() ?? '';
    return parseLines<T>(lines);
  }

  /** The stream ended: parses a last line that had no newline. */
  end(): T[] {
    const last = this.rest;
    this.rest = '';
    return parseLines<T>([last]);
  }
}

function parseLines<T>(lines: string[]): T[] {
  const out: T[] = [];
  for (const line of lines) {
    const l = line.trim();
    if (l) out.push(JSON.parse(l) as T);
  }
  return out;
}

/** Reads a byte stream as NDJSON, yielding batches of values as soon as their lines are complete. */
export async function* readNdjson<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new NdjsonParser<T>();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const batch = parser.push(decoder.decode(value, { stream: true }));
      if (batch.length) yield batch;
    }
    const tail = parser.push(decoder.decode());
    const last = [...tail, ...parser.end()];
    if (last.length) yield last;
  } finally {
    reader.releaseLock();
  }
}
