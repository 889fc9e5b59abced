/**
 * One connection per instance that LISTENs for the other instances' announcements. While it is
 * down nothing may be trusted to be current: `connected` is false, `onLost` runs once, and it
 * reconnects by itself (backing off up to 5 s), running `onLost` again once it is back so that
 * whatever changed meanwhile is dropped.
 */
import pg from 'pg';

export interface ListenerOptions {
  url: string;
  channels: string[];
  onNotice(channel: string, payload: string): void;
  /** Everything cached may be stale: the connection dropped, or came back. */
  onLost(): void;
}

export class Listener {
  private client?: pg.Client;
  private closed = false;
  private delay = 250;
  private timer?: NodeJS.Timeout;
  connected = false;

  constructor(private readonly opts: ListenerOptions) {}

  /** Connects once; throws when the database cannot be reached (the caller reports it). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => this.opts.onNotice(n.channel, n.payload ?? ''));
    try {
      await client.connect();
      for (const channel of this.opts.channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      client.on('error', () => {});
      await client.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.connected = true;
    this.delay = 250;
    // Changes made while nobody listened are unknown.
    this.opts.onLost();
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.connected = false;
    this.opts.onLost();
    client.removeAllListeners('end');
    client.on('error', () => {});
    void client.end().catch(() => {});
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect().catch(() => {
        this.delay = Math.min(this.delay * 2, 5_000);
        this.retry();
      });
    }, this.delay);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
