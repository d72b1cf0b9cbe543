/**
 * LISTEN/NOTIFY for the PostgreSQL adapters: one dedicated connection per process listens on voxdex's
 * channels (voxdex_jobs: a job became claimable; voxdex_callbacks: a callback became due; voxdex_cancel:
 * cancel the job named in the payload; voxdex_tenancy: companies or tokens changed). Notifications are
 * only a wake-up: everything they announce is also found by polling, so a lost connection costs
 * latency, not work. After a reconnect every listener is called once (something may have been missed).
 * Notifications a process caused itself carry its own application_name and are skipped (it has woken
 * itself already), except on voxdex_cancel whose payload is a job id.
 */
import pg from 'pg';
import type { Logger } from '../../log.js';

const CHANNELS = ['voxdex_jobs', 'voxdex_callbacks', 'voxdex_cancel', 'voxdex_tenancy'] as const;
export type Channel = (typeof CHANNELS)[number];

export class PgNotifier {
  readonly #url: string;
  readonly #applicationName: string;
  readonly #log: Logger | undefined;
  readonly #listeners = new Map<Channel, Set<(payload: string) => void>>();
  #client: pg.Client | undefined;
  #closed = false;
  #retryMs = 500;
  #timer: NodeJS.Timeout | undefined;

  /** `applicationName`: the one the process's pool uses (its own notifications are skipped). */
  constructor(url: string, applicationName: string, log?: Logger) {
    this.#url = url;
    this.#applicationName = applicationName;
    this.#log = log;
  }

  on(channel: Channel, listener: (payload: string) => void): () => void {
    let set = this.#listeners.get(channel);
    if (!set) this.#listeners.set(channel, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Connects and listens; resolves once listening (rejects when the first connection fails). */
  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, application_name: `${this.#applicationName} listener` });
    client.on('error', () => undefined); // 'end' follows; reconnect there
    client.on('notification', (n) => {
      const channel = n.channel as Channel;
      if (channel !== 'voxdex_cancel' && n.payload === this.#applicationName) return;
      for (const fn of this.#listeners.get(channel) ?? []) fn(n.payload ?? '');
    });
    client.on('end', () => {
      if (this.#client === client) this.#client = undefined;
      if (!this.#closed) this.#reconnectLater();
    });
    await client.connect();
    await client.query(CHANNELS.map((c) => `LISTEN ${c};`).join(' '));
    this.#client = client;
    this.#retryMs = 500;
  }

  #reconnectLater(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#connect().then(
        () => {
          this.#log?.info('listening for database notifications again');
          for (const [, set] of this.#listeners) for (const fn of set) fn('');
        },
        (err) => {
          this.#log?.warn({ err: { message: (err as Error).message } }, 'database notifications: reconnect failed; retrying');
          this.#retryMs = Math.min(10_000, this.#retryMs * 2);
          this.#reconnectLater();
        },
      );
    }, this.#retryMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const c = this.#client;
    this.#client = undefined;
    await c?.end().catch(() => undefined);
  }
}
