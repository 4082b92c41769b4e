/** Models: what this account can use now, with prices per 1M tokens. */
import { api, withAccount } from "../api.js";
import { Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "../table.js";

interface Models {
  data: Array<{ id: string; owned_by: string; pricing?: { prompt: string; completion: string }; context_length?: number }>;
}

export function ModelsPage({ account }: { account: string }) {
  const { data, error } = useLoad(() => api<Models>("GET", withAccount("/models", account)), [account]);
  return (
    <section>
      <h2>Models</h2>
      <ErrorLine error={error} />
      {data && data.data.length === 0 && <Empty>No models are usable: the gateway has no provider key for them, and this account has no BYOK key.</Empty>}
      {data && data.data.length > 0 && (
        <Table
          head={["Model", "Prompt $/1M", "Completion $/1M", "Context"]}
          rows={data.data.map((m) => [m.id, m.pricing?.prompt ?? "—", m.pricing?.completion ?? "—", m.context_length ?? "—"])}
        />
      )}
    </section>
  );
}
