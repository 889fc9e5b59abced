/**
 * File events: the files API, uploads and the command runner announce what they changed;
 * shares, the search index and the preview cache listen. Handlers are awaited, so a response
 * is sent only after every listener has seen the change (a deleted path's links are gone by then).
 */
import type { UserRecord } from '../storage/repos/users.ts';
import type { Logger } from './context.ts';

export interface FileEventMap {
  /** A file or folder was created or its contents replaced (abs = absolute real path). */
  written: { abs: string; isDir: boolean; user?: UserRecord };
  /** A file or folder (and everything under it) was removed. */
  removed: { abs: string; isDir: boolean; user?: UserRecord };
  /** A file or folder was moved or renamed. */
  moved: { fromAbs: string; toAbs: string; isDir: boolean; user?: UserRecord };
}

type Handler<K extends keyof FileEventMap> = (event: FileEventMap[K]) => Promise<void> | void;

export class FileEvents {
  private readonly handlers: { [K in keyof FileEventMap]: Array<Handler<K>> } = { written: [], removed: [], moved: [] };

  constructor(private readonly log: Logger) {}

  on<K extends keyof FileEventMap>(name: K, handler: Handler<K>): void {
    this.handlers[name].push(handler);
  }

  /** Runs every handler; a failing handler is logged and never fails the operation that emitted. */
  async emit<K extends keyof FileEventMap>(name: K, event: FileEventMap[K]): Promise<void> {
    for (const h of this.handlers[name]) {
      try {
        await h(event);
      } catch (err) {
        this.log.error(`file event ${name} handler failed: ${(err as Error).message}`);
      }
    }
  }
}
