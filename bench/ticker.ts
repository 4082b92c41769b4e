/**
 * One timer for many periodic callbacks of the same period: the fake upstream's 10,000 long
 * streams each send a chunk every `gapMs`. Every entry has the same period, so re-queuing at
 * `due + period` keeps the queue sorted by due time: one array and one setTimeout, whatever the
 * number of streams. Each entry keeps its own schedule (due += period), so a stream lasts
 * exactly chunks × period however late one tick ran.
 */
type Tick = () => boolean; // false: done, drop it

interface Entry {
  tick: Tick;
  due: number;
}

class Ticker {
  private queue: Entry[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly periodMs: number) {}

  add(tick: Tick): void {
    this.queue.push({ tick, due: performance.now() + this.periodMs });
    this.timer ??= setTimeout(() => this.run(), this.periodMs);
  }

  private run(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head < this.queue.length && this.queue[this.head]!.due <= now + 1) {
      const entry = this.queue[this.head++]!;
      if (!entry.tick()) continue;
      entry.due += this.periodMs;
      this.queue.push(entry);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const next = this.queue[this.head];
    if (next) this.timer = setTimeout(() => this.run(), Math.max(0, next.due - performance.now()));
  }
}

const tickers = new Map<number, Ticker>();

export function ticker(periodMs: number): Ticker {
  let t = tickers.get(periodMs);
  if (!t) tickers.set(periodMs, (t = new Ticker(periodMs)));
  return t;
}
