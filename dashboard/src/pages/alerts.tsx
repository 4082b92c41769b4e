/**
 * Alerts (docs/alerts.md): the account's thresholds, its webhooks (never their secrets) and the
 * delivery log, for owners and admins; and the banner every page shows when a budget reached a
 * threshold this period or the balance is below its amount. Times name their zone (ui.tsx `date`).
 */
import { api, withAccount } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";
import { Table } from "../table.js";

interface AlertLog {
  thresholds: { percents: number[]; low_balance: string | null };
  webhooks: Array<{ id: string; account: string | null; url: string; created_at: string }>;
  deliveries: Array<{
    id: string;
    url: string;
    type: string;
    level: string | null;
    threshold_percent: number | null;
    limit: string | null;
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
      {data && data.webhooks.length > 0 && <Table title="Webhooks" head={["URL", "Added"]} rows={data.webhooks.map((w) => [w.url, date(w.created_at)])} />}
      {data && data.deliveries.length === 0 && <Empty>No deliveries yet.</Empty>}
      {data && data.deliveries.length > 0 && (
        <Table
          title="Deliveries"
          head={["Created", "Alert", "Status", "Attempts", "Last status", "Delivered", "URL"]}
          rows={data.deliveries.map((d) => [date(d.created_at), fired(d), d.status, d.attempts, d.last_status ?? "—", date(d.delivered_at), d.url])}
        />
      )}
    </section>
  );
}

/** What fired a delivery: `key budget at 80%`, `balance below $5.00` (the webhook body's level and threshold). */
function fired(d: AlertLog["deliveries"][number]): string {
  if (d.type === "balance.low") return `balance below $${d.limit ?? "?"}`;
  return `${d.level ?? "?"} budget at ${d.threshold_percent ?? "?"}%`;
}

function say(a: BannerAlert): string {
  if (a.type === "balance.low") return `The balance is $${a.remaining}, below the alert amount of $${a.limit}.`;
  const whose = a.level === "key" ? `A key's budget` : a.level === "member" ? `${a.member}'s budget` : "The account's budget";
  return `${whose} reached ${a.threshold_percent}% this ${a.period === "total" ? "budget" : a.period}: $${a.spent} of $${a.limit} spent, $${a.remaining} left.`;
}

/** The most pressing first: a low balance, then the highest threshold reached. */
const urgency = (a: BannerAlert) => (a.type === "balance.low" ? 1000 : (a.threshold_percent ?? 0));

/**
 * Shown on every page while the account has a threshold reached this period or a low balance:
 * the most pressing alert, and the others behind a toggle, so the banner stays one or two lines
 * high on a phone (docs/dashboard.md, "Narrow screens").
 */
export function AlertBanner({ account }: { account: string }) {
  const { data } = useLoad(() => api<{ alerts: BannerAlert[] }>("GET", withAccount("/alerts/banner", account)), [account]);
  if (!data || data.alerts.length === 0) return null;
  const [first, ...rest] = [...data.alerts].sort((a, b) => urgency(b) - urgency(a));
  return (
    <div class="banner" role="status" aria-label="Alerts">
      <p>{say(first!)}</p>
      {rest.length > 0 && (
        <details>
          <summary>
            {rest.length} more alert{rest.length === 1 ? "" : "s"}
          </summary>
          {rest.map((a) => (
            <p>{say(a)}</p>
          ))}
        </details>
      )}
    </div>
  );
}
