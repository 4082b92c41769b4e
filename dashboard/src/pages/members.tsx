/**
 * Members (owners, and instance administrators): who belongs to the account, their role (a
 * select labelled Role), Remove behind a confirmation dialog, and a form that adds someone by email with a role. Someone
 * new gets a one-time sign-in link, shown here once for the owner to send.
 */
import { useState } from "preact/hooks";
import { api, withAccount, type Member, type MemberAdded } from "../api.js";
import { ConfirmDialog } from "../confirm.js";
import { date, ErrorLine, useLoad } from "../ui.js";

const ROLES = ["owner", "admin", "member", "viewer"] as const;

export function MembersPage({ account }: { account: string }) {
  const { data, error, reload } = useLoad(() => api<Member[]>("GET", withAccount("/members", account)), [account]);
  const [actionError, setActionError] = useState<string | null>(null);
  const [added, setAdded] = useState<MemberAdded | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setActionError(null);
    } catch (err) {
      setActionError((err as Error).message);
    }
    reload();
  };
  const path = (email: string) => withAccount(`/members/${encodeURIComponent(email)}`, account);
  return (
    <section>
      <h2>Members</h2>
      <p class="hint">Owners manage members and BYOK; admins manage everyone's keys; members their own keys and usage; viewers read usage.</p>
      <AddMemberForm account={account} onAdded={(m) => (setAdded(m), reload())} />
      {added && <AddedNotice added={added} onDone={() => setAdded(null)} />}
      <ErrorLine error={error ?? actionError} />
      {data && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Email</th>
                <th>Role</th>
                <th>Since</th>
                <th>
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((m) => (
                <tr key={m.email}>
                  <td data-label="Email">
                    {m.email}
                    {m.pending && <span class="hint"> (pending: waits for single sign-on or the operator's sign-in link)</span>}
                  </td>
                  <td data-label="Role">
                    <select
                      aria-label="Role"
                      value={m.role}
                      onChange={(e) => act(() => api("PUT", path(m.email), { role: (e.currentTarget as HTMLSelectElement).value }))}
                    >
                      {ROLES.map((r) => (
                        <option value={r}>{r}</option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Since">{date(m.created_at)}</td>
                  <td>
                    <button type="button" class="danger" onClick={() => setRemoving(m)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {removing && (
        <ConfirmDialog
          id="remove-title"
          title={`Remove ${removing.email} from ${account}?`}
          action="Remove"
          run={() => api("DELETE", path(removing.email))}
          onDone={reload}
          onClose={() => setRemoving(null)}
        >
          <p>They lose access to this account at once. Their dashboard user, their other accounts and the keys they created stay (revoke those on Keys).</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function AddMemberForm({ account, onAdded }: { account: string; onAdded: (m: MemberAdded) => void }) {
  const [error, setError] = useState<string | null>(null);
  const add = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    try {
      onAdded(await api<MemberAdded>("POST", "/members", { email: f.get("email"), role: f.get("role"), account }));
      setError(null);
      form.reset();
      // Back to member, the least surprising role (a reset would pick the first option, owner).
      (form.elements.namedItem("role") as HTMLSelectElement).value = "member";
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card row" onSubmit={add}>
      <label>
        Email
        <input name="email" type="email" required maxLength={254} autocomplete="off" />
      </label>
      <div class="field">
        <label for="new-member-role">New member's role</label>
        <select id="new-member-role" name="role">
          {ROLES.map((r) => (
            <option value={r} selected={r === "member"}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Add member</button>
      <ErrorLine error={error} />
    </form>
  );
}

/** What adding someone did (docs/dashboard.md "Invitations"): a link to send, nothing to do, or a pending membership. */
function AddedText({ added }: { added: MemberAdded }) {
  if (added.pending && !added.link)
    return (
      <p>
        <strong>{added.email}</strong> was added as {added.role}, pending: another account's owner invited this address, so the password it has does not open
        this account. It opens once they sign in with single sign-on, or through a sign-in link the gateway's operator gives them (
        <code>gateway users reset {added.email}</code>).
      </p>
    );
  if (!added.link)
    return (
      <p>
        <strong>{added.email}</strong> already had a dashboard user and was added as {added.role}: they sign in as before.
      </p>
    );
  return (
    <>
      <p>
        <strong>{added.email}</strong> was added as {added.role}
        {added.pending ? ", pending until they use this link: the password another account's owner had them set does not open this account" : ""}. Send them
        this sign-in link (valid until {date(added.expires_at)}, usable once); it is shown only now.
      </p>
      <code class="full-key">{added.link}</code>
    </>
  );
}

function AddedNotice({ added, onDone }: { added: MemberAdded; onDone: () => void }) {
  return (
    <div class="card new-key" role="status">
      <AddedText added={added} />
      <div class="actions">
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
