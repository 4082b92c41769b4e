import { useState } from "preact/hooks";
import { api, type Me, type SignInMethods } from "../api.js";
import { ErrorLine, useLoad } from "../ui.js";

/** What a refused single sign-on says; the server sends a code only, so a crafted link cannot put words here. */
const SSO_ERRORS: Record<string, string> = {
  domain_not_allowed: "Your email domain is not allowed to sign in to this gateway.",
  email_unverified: "Your identity provider says your email address is not verified.",
  email_missing: "Your identity provider sent no email address.",
  sso_unavailable: "The single sign-on provider could not be reached. Try again later.",
  sso_failed: "Single sign-on did not complete. Try again.",
};

const ssoError = (code: string | null) => (code ? (SSO_ERRORS[code] ?? "Single sign-on failed. Try again.") : null);

/** Email and password, and `Sign in with SSO` when the gateway has an issuer; passwords may be off. */
export function SignInPage({ onDone, ssoErrorCode }: { onDone: (me: Me) => void; ssoErrorCode: string | null }) {
  const [error, setError] = useState<string | null>(ssoError(ssoErrorCode));
  const methods = useLoad(() => api<SignInMethods>("GET", "/sign-in-methods"), []).data;
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      onDone(await api<Me>("POST", "/session", { email: form.get("email"), password: form.get("password") }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const sso = methods?.sso ? (
    <button type="button" onClick={() => location.assign("/dashboard/api/oidc/start")}>
      Sign in with SSO
    </button>
  ) : null;
  if (methods && !methods.password)
    return (
      <div class="card narrow">
        <h2>Sign in</h2>
        <ErrorLine error={error} />
        {sso}
      </div>
    );
  return (
    <form class="card narrow" onSubmit={submit}>
      <h2>Sign in</h2>
      <label>
        Email
        <input name="email" type="email" autocomplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autocomplete="current-password" required />
      </label>
      <ErrorLine error={error} />
      <button type="submit">Sign in</button>
      {sso && <p class="hint">Or with your organization's account:</p>}
      {sso}
      <p class="hint">
        No password yet, or forgot it? Ask the gateway's operator for a sign-in link (<code>gateway users reset</code>).
      </p>
    </form>
  );
}
