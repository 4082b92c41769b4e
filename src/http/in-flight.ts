/**
 * How many model requests (chat, Responses, Messages, Gemini: the Exchange's routes) this
 * process has in flight, for the heap policy that trades some CPU for memory while many are
 * open at once, as long streams are (src/cli/heap.ts; docs/architecture.md, "Memory").
 * One listener, told on every change: it must stay a comparison.
 */
let open = 0;
let listener: ((open: number) => void) | undefined;

export function requestOpened(): void {
  listener?.(++open);
}

export function requestClosed(): void {
  listener?.(--open);
}

export function onInFlight(follow: ((open: number) => void) | undefined): void {
  listener = follow;
}
