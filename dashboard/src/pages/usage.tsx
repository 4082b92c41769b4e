/**
 * Usage: spend per day for the last 30 days (chart), by model, by key, a breakdown over any range,
 * and the latest requests; on a phone each table shows its first rows until `Show all`.
 */
import { api, withAccount, type Usage } from "../api.js";
import { SpendChart } from "../chart.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "../table.js";
import { UsageBreakdown } from "./usage-breakdown.js";

export function UsagePage({ account }: { account: string }) {
  const { data, error } = useLoad(() => api<Usage>("GET", withAccount("/usage", account)), [account]);
  return (
    <section>
      <h2>Usage</h2>
      <ErrorLine error={error} />
      {data && (
        <>
          <p class="totals">
            Last 30 days: <strong>${data.cost}</strong> over {data.requests} requests ({data.prompt_tokens} prompt + {data.completion_tokens} completion tokens)
          </p>
          {data.cache_hits > 0 && (
            <p class="totals">
              Response cache: <strong>{data.cache_hits}</strong> hits, <strong>${data.cache_saved}</strong> saved at list price
            </p>
          )}
          <figure class="card">
            <figcaption>Spend per day (USD), last 30 days (UTC days)</figcaption>
            <SpendChart daily={data.daily} />
          </figure>
          {data.requests === 0 && <Empty>No requests in the last 30 days. Create a key and send a request: it shows up here.</Empty>}
          {data.requests > 0 && (
            <div class="two">
              <Table
                title="By model"
                clip
                head={["Model", "Requests", "Tokens", "Cost", "Cache hits"]}
                rows={data.by_model.map((m) => [m.model, m.requests, m.prompt_tokens + m.completion_tokens, `$${m.cost}`, m.cache_hits])}
              />
              <Table
                title="By key"
                clip
                head={["Key", "Requests", "Tokens", "Cost", "Cache hits"]}
                rows={data.by_key.map((k) => [k.name ?? k.key_id, k.requests, k.prompt_tokens + k.completion_tokens, `$${k.cost}`, k.cache_hits])}
              />
            </div>
          )}
          <UsageBreakdown account={account} keyNames={new Map(data.by_key.map((k) => [k.key_id, k.name ?? k.key_id]))} />
          <h3>Latest requests</h3>
          {data.recent.length === 0 ? (
            <Empty>No requests yet.</Empty>
          ) : (
            <Table
              clip
              head={["Time", "Key", "Model", "Provider", "Tokens", "Cost", "Status", "Latency"]}
              rows={data.recent.map((r) => [
                date(r.created_at),
                r.key_name ?? "",
                r.model,
                r.provider ?? "—",
                `${r.prompt_tokens} + ${r.completion_tokens}`,
                r.byok ? `$${r.cost} (BYOK)` : `$${r.cost}`,
                r.status,
                `${r.latency_ms} ms`,
              ])}
            />
          )}
        </>
      )}
    </section>
  );
}
