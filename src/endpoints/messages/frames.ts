/** SSE frames in Anthropic's form: each event with its `event:` line and `type` in its data (docs/messages.md). */

export function eventFrame(type: string, body: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
}

/** A failure after the first byte: Anthropic's `error` event around the gateway's error object. */
export function errorEvent(requestId: string): string {
  const error = {
    message: "The upstream stream failed after it started. The answer is incomplete.",
    type: "upstream_error",
    code: "stream_interrupted",
    request_id: requestId,
  };
  return eventFrame("error", { error });
}
