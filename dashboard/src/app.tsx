/**
 * The dashboard shell: who is signed in, the tabs of docs/dashboard.md (Keys, Usage, Credits,
 * BYOK, Models, Health, Audit) as links, Sign out, and for admins the account being looked at.
 * Routes live in the URL's fragment, so a sign-in link's token never reaches a server log.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type Me } from "./api.js";
import { AuditPage } from "./pages/audit.js";
import { ByokPage } from "./pages/byok.js";
import { CreditsPage } from "./pages/credits.js";
import { HealthPage } from "./pages/health.js";
import { KeysPage } from "./pages/keys.js";
import { ModelsPage } from "./pages/models.js";
import { SetPasswordPage } from "./pages/set-password.js";
import { SignInPage } from "./pages/sign-in.js";
import { UsagePage } from "./pages/usage.js";
import { AccountPicker } from "./pages/account-picker.js";

const TABS = ["Keys", "Usage", "Credits", "BYOK", "Models", "Health", "Audit"] as const;
type Tab = (typeof TABS)[number];

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
        <SignInPage onDone={signedIn} />
      </Frame>
    );

  const tab: Tab = TABS.find((t) => t.toLowerCase() === page) ?? "Keys";
  const signOut = async () => {
    await api("DELETE", "/session").catch(() => undefined);
    setMe(null);
    go("#/");
  };
  const shown = account ?? me.account;
  return (
    <Frame>
      <header class="bar">
        <nav aria-label="Dashboard">
          {TABS.map((t) => (
            <a href={`#/${t.toLowerCase()}`} aria-current={t === tab ? "page" : undefined}>
              {t}
            </a>
          ))}
        </nav>
        <div class="who">
          {me.admin ? <AccountPicker value={shown} onChange={setAccount} /> : <span>{me.account}</span>}
          <span class="email">{me.email}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main>
        {tab === "Keys" && <KeysPage account={shown} />}
        {tab === "Usage" && <UsagePage account={shown} />}
        {tab === "Credits" && <CreditsPage account={shown} admin={me.admin} onAccount={setAccount} />}
        {tab === "BYOK" && <ByokPage account={shown} />}
        {tab === "Models" && <ModelsPage account={shown} />}
        {tab === "Health" && <HealthPage />}
        {tab === "Audit" && <AuditPage account={shown} />}
      </main>
    </Frame>
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
