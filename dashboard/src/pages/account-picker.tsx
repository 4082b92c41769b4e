import { api } from "../api.js";
import { useLoad } from "../ui.js";

/** Admins look at one account at a time. */
export function AccountPicker({ value, onChange }: { value: string; onChange: (a: string) => void }) {
  const { data } = useLoad(() => api<Array<{ id: string }>>("GET", "/accounts"), []);
  const ids = data?.map((a) => a.id) ?? [value];
  return (
    <span class="inline">
      <label for="viewing-account">Viewing account</label>
      <select id="viewing-account" value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        {(ids.includes(value) ? ids : [value, ...ids]).map((id) => (
          <option value={id}>{id}</option>
        ))}
      </select>
    </span>
  );
}
