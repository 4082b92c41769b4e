/** Health: each provider's status, latency, success rate and circuit, as GET /v1/health/providers reports them. */
import { api } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "../table.js";

interface Health {
  status: string;
  providers: Array<{ id: string; status: string; latency_ms: number | null; success_rate: number | null; checked_at: string | null; circuit: string }>;
}

export function HealthPage() {
  const { data, error } = useLoad(() => api<Health>("GET", "/health"), []);
  return (
    <section>
      <h2>Health</h2>
      <ErrorLine error={error} />
      {data && (
        <p>
          Overall: <span class={`state ${data.status}`}>{data.status}</span>
        </p>
      )}
      {data && data.providers.length === 0 && <Empty>No providers are configured with a key.</Empty>}
      {data && data.providers.length > 0 && (
        <Table
          head={["Provider", "Status", "Latency", "Success rate", "Circuit", "Checked"]}
          rows={data.providers.map((p) => [
            p.id,
            p.status,
            p.latency_ms === null ? "—" : `${p.latency_ms} ms`,
            p.success_rate === null ? "—" : `${Math.round(p.success_rate * 100)}%`,
            p.circuit,
            date(p.checked_at),
          ])}
        />
      )}
    </section>
  );
}
