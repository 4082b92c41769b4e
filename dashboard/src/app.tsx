/**
 * The dashboard shell: who is signed in, the tabs of docs/dashboard.md (Keys, Usage, Credits,
 * BYOK, Members, Models, Health, Alerts, Audit, MCP) as links, only those the user's role in the account may use,
 * the alert banner (docs/alerts.md), Sign out, and the account being looked at (admins: any; members of several: theirs).
 * Routes live in the URL's fragment, so a sign-in link's token never reaches a server log.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type Me, type Role } from "./api.js";
import { AlertBanner, AlertsPage } from "./pages/alerts.js";
import { AuditPage } from "./pages/audit.js";
import { ByokPage } from "./pages/byok.js";
import { CreditsPage } from "./pages/credits.js";
import { HealthPage } from "./pages/health.js";
import { KeysPage } from "./pages/keys.js";
import { McpPage } from "./pages/mcp.js";
import { MembersPage } from "./pages/members.js";
import { ModelsPage } from "./pages/models.js";
import { SetPasswordPage } from "./pages/set-password.js";
import { SignInPage } from "./pages/sign-in.js";
import { UsagePage } from "./pages/usage.js";
import { AccountPicker, Picker } from "./pages/account-picker.js";

const TABS = ["Keys", "Usage", "Credits", "BYOK", "Members", "Models", "Health", "Alerts", "Audit", "MCP"] as const;
type Tab = (typeof TABS)[number];

/** The pages each role may use: docs/dashboard.md's roles table (the API enforces it; this only hides what would be refused). */
const PAGES: Record<Role, readonly Tab[]> = {
  owner: TABS,
  admin: ["Keys", "Usage", "Credits", "Models", "Health", "Alerts", "Audit", "MCP"],
  member: ["Keys", "Usage", "Models", "Health"],
  viewer: ["Usage", "Credits", "Models", "Health"],
};

/** The user's role in `account`: an instance admin is owner everywhere. */
const roleIn = (me: Me, account: string): Role | null => (me.admin ? "owner" : (me.memberships.find((m) => m.account === account)?.role ?? null));

function route(): { page: string; params: URLSearchParams } {
  const [path = "", query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  return { page: path.toLowerCase(), params: new URLSearchParams(query) };
}

function useRoute() {
  const [r, setR] = useState(route);
  useEffect(() => {
    const on = () => setR(route());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  // replaceState fires no hashchange: `go` updates the route itself.
  const go = (hash: string) => {
    history.replaceState(null, "", hash);
    setR(route());
  };
  return { ...r, go };
}

export function App() {
  const { page, params, go } = useRoute();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [account, setAccount] = useState<string | undefined>(undefined);
  useEffect(() => {
    api<Me>("GET", "/me").then(setMe, (e: unknown) => setMe(e instanceof ApiError && e.status === 401 ? null : null));
  }, []);

  const signedIn = (u: Me) => {
    setMe(u);
    go("#/keys"); // replaces the address: a spent sign-in token leaves the bar and the history
  };
  if (page === "set-password")
    return (
      <Frame>
        <SetPasswordPage token={params.get("token") ?? ""} onDone={signedIn} />
      </Frame>
    );
  if (me === undefined)
    return (
      <Frame>
        <p class="empty">Loading…</p>
      </Frame>
    );
  if (me === null)
    return (
      <Frame>
        <SignInPage onDone={signedIn} ssoErrorCode={params.get("sso_error")} />
      </Frame>
    );

  const shown = account ?? me.account;
  const tabs = PAGES[roleIn(me, shown) ?? "viewer"];
  const tab: Tab = tabs.find((t) => t.toLowerCase() === page) ?? tabs[0]!;
  const signOut = async () => {
    await api("DELETE", "/session").catch(() => undefined);
    setMe(null);
    go("#/");
  };
  return (
    <Frame>
      <header class="bar">
        <nav aria-label="Dashboard">
          {tabs.map((t) => (
            <a href={`#/${t.toLowerCase()}`} aria-current={t === tab ? "page" : undefined}>
              {t}
            </a>
          ))}
        </nav>
        <div class="who">
          {me.admin ? (
            <AccountPicker value={shown} onChange={setAccount} />
          ) : me.memberships.length > 1 ? (
            <Picker ids={me.memberships.map((m) => m.account)} value={shown} onChange={setAccount} />
          ) : (
            <span>{shown}</span>
          )}
          <span class="email">{me.email}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <AlertBanner account={shown} />
      <SignInNotice code={params.get("sso_notice")} onDone={() => go("#/")} />
      <main>
        {tab === "Keys" && <KeysPage account={shown} />}
        {tab === "Usage" && <UsagePage account={shown} />}
        {tab === "Credits" && <CreditsPage account={shown} admin={me.admin} onAccount={setAccount} />}
        {tab === "BYOK" && <ByokPage account={shown} />}
        {tab === "Members" && <MembersPage account={shown} />}
        {tab === "Models" && <ModelsPage account={shown} />}
        {tab === "Health" && <HealthPage />}
        {tab === "Alerts" && <AlertsPage account={shown} />}
        {tab === "Audit" && <AuditPage account={shown} />}
        {tab === "MCP" && <McpPage account={shown} />}
      </main>
    </Frame>
  );
}

/** What the sign-in did that the person must know; the server sends a code only, so a crafted link cannot put words here. */
const NOTICES: Record<string, string> = {
  password_removed:
    "You signed in with single sign-on. A password someone set for your address through another account's invitation has been removed, and every session it had opened has ended.",
};

function SignInNotice({ code, onDone }: { code: string | null; onDone: () => void }) {
  const text = code ? NOTICES[code] : undefined;
  if (!text) return null;
  return (
    <div class="card" role="status">
      <p>{text}</p>
      <button type="button" class="secondary" onClick={onDone}>
        Dismiss
      </button>
    </div>
  );
}

function Frame({ children }: { children: preact.ComponentChildren }) {
  return (
    <div class="frame">
      <h1 class="brand">LLM gateway</h1>
      {children}
    </div>
  );
}
