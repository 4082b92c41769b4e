/**
 * Audit: every change to the account shown (keys, credits, BYOK, users), newest first: when (UTC),
 * who, from where, what, and the changed fields before and after (docs/audit.md), which wrap
 * rather than widen the table past the screen.
 */
import { api, withAccount } from "../api.js";
import { Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "../table.js";

interface AuditLog {
  account: string;
  time_zone: string;
  records: Array<{
    id: number;
    at: string;
    actor: string;
    ip: string | null;
    action: string;
    target: string;
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
  }>;
}

const fields = (v: Record<string, unknown> | null) =>
  v === null
    ? "—"
    : Object.entries(v)
        .map(([k, x]) => `${k}: ${typeof x === "string" ? x : JSON.stringify(x)}`)
        .join(", ");

export function AuditPage({ account }: { account: string }) {
  const { data, error } = useLoad(() => api<AuditLog>("GET", withAccount("/audit", account)), [account]);
  return (
    <section>
      <h2>Audit</h2>
      <ErrorLine error={error} />
      {data && (
        <p class="hint" role="note">
          Times are in {data.time_zone}.
        </p>
      )}
      {data && data.records.length === 0 && <Empty>No changes recorded yet.</Empty>}
      {data && data.records.length > 0 && (
        <Table
          head={[`Time (${data.time_zone})`, "Who", "IP", "Action", "Target", "Before", "After"]}
          wrap={[5, 6]}
          rows={data.records.map((r) => [r.at.slice(0, 19).replace("T", " "), r.actor, r.ip ?? "—", r.action, r.target, fields(r.before), fields(r.after)])}
        />
      )}
    </section>
  );
}
