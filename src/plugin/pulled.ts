/**
 * A plugin's `chat.stream` from its `chat.streamEvents` translator (contract.ts): the same
 * synchronous translation, pulled through an async iterator for the paths that read one (a
 * decoded Bedrock event stream, tests). One translation per provider, so both cannot disagree.
 */
/** Returns true when the event ends the answer (what follows it is not read). */
export type Translate<E, D> = (event: E, emit: (delta: D) => void) => boolean | void;

export async function* pulled<E, D>(events: AsyncIterable<E>, translate: Translate<E, D>): AsyncIterable<D> {
  const out: D[] = [];
  for await (const event of events) {
    const over = translate(event, (d) => out.push(d));
    yield* out.splice(0);
    if (over === true) return;
  }
}
