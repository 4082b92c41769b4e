/** Where a streamed answer is written: the node:http response (http/exchange.ts), or a test's sink. */
export interface SseSink {
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
  /** A promise only when the client is behind (backpressure): wait for it before the next. */
  write(frame: string): Promise<void> | undefined;
  end(frame: string): void;
}
