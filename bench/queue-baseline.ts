/**
 * The in-process async queue baseline of shared/design/stack.md ("the same rows through an
 * in-process async queue: 1.0M (1/batch) to 4.4M rows/s (512/batch)"), reproduced: a producer
 * task pushes rows of ~100 bytes through a bounded async queue to a consumer task, in batches of
 * 1 or 512 rows. It is the ceiling for moving rows between two async tasks in one thread.
 */

/** A bounded single-producer/single-consumer async queue. */
class AsyncQueue<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waitingTake: ((v: T) => void) | undefined;
  private waitingPut: (() => void) | undefined;

  constructor(private readonly capacity: number) {}

  async put(item: T): Promise<void> {
    if (this.waitingTake) {
      const take = this.waitingTake;
      this.waitingTake = undefined;
      take(item);
      return;
    }
    while (this.items.length - this.head >= this.capacity) await new Promise<void>((r) => (this.waitingPut = r));
    this.items.push(item);
  }

  async take(): Promise<T> {
    if (this.head < this.items.length) {
      const item = this.items[this.head++];
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      const put = this.waitingPut;
      this.waitingPut = undefined;
      put?.();
      return item;
    }
    return new Promise<T>((r) => (this.waitingTake = r));
  }
}

/** A row as the engine holds it: kind, table and ~100 bytes of fields. */
function makeRow(i: number) {
  return {
    kind: '+I',
    tableId: 'fake',
    fields: [i, `name-${i % 1000}-abcdefghijklmnopqrstuvwxyz`, i % 100, i * 1.5, `city-${i % 37}-0123456789`],
  };
}

/** Distinct rows made before timing, reused in turn, so the timing measures the queue alone. */
const ROW_POOL = Array.from({ length: 65_536 }, (_, i) => makeRow(i));

/** Rows per second through the queue, `batch` rows per message. */
export async function queueRowsPerSecond(totalRows: number, batch: number): Promise<number> {
  const q = new AsyncQueue<ReturnType<typeof makeRow>[] | null>(64);
  const start = process.hrtime.bigint();
  const consumer = (async () => {
    let n = 0;
    for (;;) {
      const b = await q.take();
      if (b === null) return n;
      // The consumer looks at every row, as a sink would; the queue alone would only count arrays.
      for (let k = 0; k < b.length; k++) if (b[k].fields.length > 0) n++;
    }
  })();
  for (let i = 0; i < totalRows; ) {
    const b: ReturnType<typeof makeRow>[] = [];
    for (let j = 0; j < batch && i < totalRows; j++, i++) b.push(ROW_POOL[i & 65_535]);
    await q.put(b);
  }
  await q.put(null);
  const got = await consumer;
  if (got !== totalRows) throw new Error(`the queue delivered ${got} of ${totalRows} rows`);
  return totalRows / (Number(process.hrtime.bigint() - start) / 1e9);
}
