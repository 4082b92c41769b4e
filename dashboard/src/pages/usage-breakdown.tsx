/**
 * The Usage page's breakdown (docs/usage.md): spend grouped by a tag, member, key, model,
 * endpoint or UTC day over a date range, and `Export CSV`, which downloads the rows `gateway
 * usage --by ... --csv` prints. Dates are UTC days, as the ledger's rollups keep them.
 */
import { useState } from "preact/hooks";
import { api, withAccount, type UsageGroupRow } from "../api.js";
import { Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "../table.js";

const GROUPINGS = [
  ["tag", "Tag"],
  ["member", "Member"],
  ["key", "Key"],
  ["model", "Model"],
  ["endpoint", "Endpoint"],
  ["day", "Day"],
] as const;
type Grouping = (typeof GROUPINGS)[number][0];

const DAY_MS = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What a row without a group stands for: no such tag, or a key created from the CLI. */
const nullLabel = (by: Grouping) => (by === "tag" ? "(no tag)" : by === "member" ? "(CLI)" : "(none)");

function query(by: Grouping, tag: string, since: string, until: string): string {
  const p = new URLSearchParams({ by: by === "tag" ? `tag:${tag}` : by });
  if (since) p.set("since", since);
  if (until) p.set("until", until);
  return p.toString();
}

/** A download of the server's CSV through a link the browser follows with the session cookie. */
function download(path: string): void {
  const a = document.createElement("a");
  a.href = `/dashboard/api${path}`;
  a.download = "";
  document.body.append(a);
  a.click();
  a.remove();
}

export function UsageBreakdown({ account, keyNames }: { account: string; keyNames: Map<string, string> }) {
  const today = Date.now();
  const [since, setSince] = useState(utcDate(today - 29 * DAY_MS));
  const [until, setUntil] = useState(utcDate(today));
  const [by, setBy] = useState<Grouping>("model");
  const [tag, setTag] = useState("team");
  const q = query(by, tag.trim(), since, until);
  const ready = by !== "tag" || tag.trim() !== "";
  const { data, error } = useLoad(
    () => (ready ? api<{ data: UsageGroupRow[] }>("GET", withAccount(`/usage/groups?${q}`, account)) : Promise.resolve({ data: [] })),
    [account, q],
  );
  const head = by === "day" ? "Day (UTC)" : by === "tag" ? `Tag ${tag.trim()}` : (GROUPINGS.find((g) => g[0] === by)?.[1] ?? by);
  const label = (r: UsageGroupRow) =>
    r.group === null ? nullLabel(by) : by === "key" && keyNames.has(r.group) ? `${keyNames.get(r.group)} (${r.group})` : r.group;
  return (
    <section class="breakdown">
      <h3>Breakdown</h3>
      <form class="card row" onSubmit={(e) => e.preventDefault()}>
        <label>
          From (UTC)
          <input type="date" value={since} max={until || undefined} onChange={(e) => setSince(e.currentTarget.value)} />
        </label>
        <label>
          Until (UTC, included)
          <input type="date" value={until} min={since || undefined} onChange={(e) => setUntil(e.currentTarget.value)} />
        </label>
        <label>
          Group by
          <select value={by} onChange={(e) => setBy(e.currentTarget.value as Grouping)}>
            {GROUPINGS.map(([value, text]) => (
              <option value={value}>{text}</option>
            ))}
          </select>
        </label>
        {by === "tag" && (
          <label>
            Tag name
            <input value={tag} maxLength={64} placeholder="team" onChange={(e) => setTag(e.currentTarget.value)} />
          </label>
        )}
        <button type="button" class="secondary" disabled={!ready} onClick={() => download(withAccount(`/usage/groups.csv?${q}`, account))}>
          Export CSV
        </button>
      </form>
      <ErrorLine error={error} />
      {data && data.data.length === 0 && <Empty>No requests in this range.</Empty>}
      {data && data.data.length > 0 && (
        <Table
          title={`By ${head.toLowerCase()}, ${since || "the start"} to ${until || "now"}`}
          clip
          head={[head, "Requests", "Prompt tokens", "Completion tokens", "Cost"]}
          rows={data.data.map((r) => [label(r), r.requests, r.prompt_tokens, r.completion_tokens, `$${r.cost}`])}
        />
      )}
    </section>
  );
}
