/**
 * The ASR pool's task queue (piscina's TaskQueue): live calls' utterances go ahead of batch work.
 * A task says it is live through piscina's queue options (`task[Piscina.queueOptionsSymbol]`,
 * `{ live: true }`); every other task is batch. Within each class the order is first come, first
 * served. Only tasks waiting for a thread are reordered: a batch task already in a thread finishes
 * (the transcriber keeps batch tasks small while live calls run: pool.liveRecently).
 */
import { queueOptionsSymbol, type TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

/** Whether a queued task asked for live priority. */
export function isLiveTask(task: Task): boolean {
  const options = (task as unknown as Record<symbol, unknown>)[queueOptionsSymbol];
  return typeof options === 'object' && options !== null && (options as { live?: unknown }).live === true;
}

export class PriorityTaskQueue implements TaskQueue {
  readonly #live: Task[] = [];
  readonly #batch: Task[] = [];

  get size(): number {
    return this.#live.length + this.#batch.length;
  }

  /** Live tasks waiting. */
  get liveSize(): number {
    return this.#live.length;
  }

  push(task: Task): void {
    (isLiveTask(task) ? this.#live : this.#batch).push(task);
  }

  unshift(task: Task): void {
    (isLiveTask(task) ? this.#live : this.#batch).unshift(task);
  }

  shift(): Task | null {
    return this.#live.shift() ?? this.#batch.shift() ?? null;
  }

  remove(task: Task): void {
    for (const q of [this.#live, this.#batch]) {
      const i = q.indexOf(task);
      if (i >= 0) {
        q.splice(i, 1);
        return;
      }
    }
  }
}
