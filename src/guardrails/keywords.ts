/**
 * The prefilter: every rule keyword found in one pass over the text, case-insensitively
 * (ASCII), with an Aho-Corasick automaton compiled to a dense table, so a 100 KB prompt costs
 * one array read per character whatever the number of rules (docs/guardrails.md "Cost").
 * Keywords are ASCII; any other character resets the automaton, which no keyword contains.
 */
const WIDTH = 128;

/** A keyword of rule `rule` seen at `at` (its first character's index). */
export interface KeywordHit {
  at: number;
  rule: number;
}

export class Keywords {
  /** delta[state * WIDTH + char] → next state: goto and failure links folded together. */
  private readonly delta: Int32Array;
  /** Per state: the rules whose keyword ends here (own or by failure link), with that keyword's length. */
  private readonly out: Array<Array<{ rule: number; length: number }>>;
  /** Per state: how many characters of a keyword it has read (the longest prefix that is a suffix). */
  private readonly depth: Int32Array;

  constructor(keywords: ReadonlyArray<{ keyword: string; rule: number }>) {
    const trie = buildTrie(keywords);
    this.depth = Int32Array.from(trie.depth);
    this.out = trie.out;
    this.delta = new Int32Array(trie.next.length * WIDTH);
    this.link(trie.next);
  }

  /** Breadth-first: each state's missing transitions are its failure state's. */
  private link(next: Array<Map<number, number>>): void {
    const fail = new Int32Array(next.length);
    const queue: number[] = [];
    for (let c = 0; c < WIDTH; c++) {
      const s = next[0]!.get(c) ?? 0;
      this.delta[c] = s;
      if (s !== 0) queue.push(s);
    }
    for (let i = 0; i < queue.length; i++) {
      const s = queue[i]!;
      this.out[s]!.push(...this.out[fail[s]!]!);
      for (let c = 0; c < WIDTH; c++) {
        const t = next[s]!.get(c);
        if (t === undefined) this.delta[s * WIDTH + c] = this.delta[fail[s]! * WIDTH + c]!;
        else ((fail[t] = this.delta[fail[s]! * WIDTH + c]!), (this.delta[s * WIDTH + c] = t), queue.push(t));
      }
    }
  }

  /** Every keyword occurrence; `state` is where the automaton stopped (see `pending`). */
  find(text: string): { hits: KeywordHit[]; state: number } {
    const hits: KeywordHit[] = [];
    const { delta, out } = this;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= WIDTH) {
        s = 0;
        continue;
      }
      if (c >= 65 && c <= 90) c |= 32;
      s = delta[s * WIDTH + c]!;
      const found = out[s]!;
      for (let k = 0; k < found.length; k++) hits.push({ at: i - found[k]!.length + 1, rule: found[k]!.rule });
    }
    return { hits, state: s };
  }

  /** How many characters at the end of the text may be the start of a keyword still to come. */
  pending(state: number): number {
    return this.depth[state]!;
  }
}

function buildTrie(keywords: ReadonlyArray<{ keyword: string; rule: number }>) {
  const next: Array<Map<number, number>> = [new Map()];
  const out: Array<Array<{ rule: number; length: number }>> = [[]];
  const depth: number[] = [0];
  for (const { keyword, rule } of keywords) {
    let s = 0;
    for (const ch of keyword.toLowerCase()) {
      const c = ch.charCodeAt(0);
      if (c >= WIDTH) throw new Error(`guardrail keyword '${keyword}' is not ASCII`);
      let t = next[s]!.get(c);
      if (t === undefined) ((t = next.length), next[s]!.set(c, t), next.push(new Map()), out.push([]), depth.push(depth[s]! + 1));
      s = t;
    }
    out[s]!.push({ rule, length: keyword.length });
  }
  return { next, out, depth };
}
