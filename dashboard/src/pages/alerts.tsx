/**
 * Alerts (docs/alerts.md): the account's thresholds, its webhooks (never their secrets) and the
 * delivery log, for owners and admins; and the banner every page shows when a budget reached a
 * threshold this period or the balance is below its amount. Times are UTC.
 */
import { api, withAccount } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "./usage.js";

interface AlertLog {
  thresholds: { percents: number[]; low_balance: string | null };
  webhooks: Array<{ id: string; account: string | null; url: string; created_at: string }>;
  deliveries: Array<{
    id: string;
    url: string;
    type: string;
    status: string;
    attempts: number;
    last_status: number | null;
    created_at: string | null;
    delivered_at: string | null;
  }>;
}

interface BannerAlert {
  type: "budget.threshold" | "balance.low";
  level: string;
  key?: string;
  member?: string;
  threshold_percent?: number;
  limit: string;
  spent: string | null;
  remaining: string;
  period: string | null;
}

export function AlertsPage({ account }: { account: string }) {
  const { data, error } = useLoad(() => api<AlertLog>("GET", withAccount("/alerts", account)), [account]);
  return (
    <section>
      <h2>Alerts</h2>
      <ErrorLine error={error} />
      {data && (
        <p>
          Alerts at {data.thresholds.percents.join("%, ")}% of each budget;{" "}
          {data.thresholds.low_balance === null ? "no low-balance alert" : `low balance below $${data.thresholds.low_balance}`}. Set them with{" "}
          <code>gateway alerts thresholds</code>; add a webhook with <code>gateway alerts add</code>.
        </p>
      )}
      {data && data.webhooks.length === 0 && <Empty>No webhook receives this account's alerts.</Empty>}
      {data && data.webhooks.length > 0 && (
        <Table title="Webhooks" head={["URL", "Added (UTC)"]} rows={data.webhooks.map((w) => [w.url, date(w.created_at)])} />
      )}
      {data && data.deliveries.length === 0 && <Empty>No deliveries yet.</Empty>}
      {data && data.deliveries.length > 0 && (
        <Table
          title="Deliveries"
          head={["Created (UTC)", "Type", "Status", "Attempts", "Last status", "Delivered (UTC)", "URL"]}
          rows={data.deliveries.map((d) => [date(d.created_at), d.type, d.status, d.attempts, d.last_status ?? "—", date(d.delivered_at), d.url])}
        />
      )}
    </section>
  );
}

function say(a: BannerAlert): string {
  if (a.type === "balance.low") return `The balance is $${a.remaining}, below the alert amount of $${a.limit}.`;
  const whose = a.level === "key" ? `A key's budget` : a.level === "member" ? `${a.member}'s budget` : "The account's budget";
  return `${whose} reached ${a.threshold_percent}% this ${a.period === "total" ? "budget" : a.period}: $${a.spent} of $${a.limit} spent, $${a.remaining} left.`;
}

/** Shown on every page while the account has a threshold reached this period or a low balance. */
export function AlertBanner({ account }: { account: string }) {
  const { data } = useLoad(() => api<{ alerts: BannerAlert[] }>("GET", withAccount("/alerts/banner", account)), [account]);
  if (!data || data.alerts.length === 0) return null;
  return (
    <div class="banner" role="status" aria-label="Alerts">
      {data.alerts.map((a) => (
        <p>{say(a)}</p>
      ))}
    </div>
  );
}
