/**
 * The dashboard's one table component, used by every page: kept apart from any page so pages
 * import it without importing each other (usage.tsx and usage-breakdown.tsx were a cycle).
 */
import { useState } from "preact/hooks";

/** Rows a phone shows of a `clip` table until `Show all` (docs/dashboard.md, "Narrow screens"; narrow.css hides the rest). */
const PHONE_ROWS = 3;

/**
 * A table; on a phone its rows stack as cards (narrow.css). `clip`: a phone shows the first
 * PHONE_ROWS rows and a `Show all` button (wider screens show every row). `wrap`: the columns,
 * by index, whose long text wraps instead of widening the table.
 */
export function Table({
  title,
  head,
  rows,
  clip,
  wrap,
}: {
  title?: string;
  head: string[];
  rows: Array<Array<string | number>>;
  clip?: boolean;
  wrap?: number[];
}) {
  const [all, setAll] = useState(false);
  const clipped = clip === true && !all && rows.length > PHONE_ROWS;
  return (
    <div class="scroll">
      <table class={clipped ? "clip" : undefined}>
        {title && <caption>{title}</caption>}
        <thead>
          <tr>
            {head.map((h) => (
              <th>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              {r.map((c, i) => (
                <td data-label={head[i]} class={wrap?.includes(i) ? "wrap" : undefined}>
                  {c}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {clipped && (
        <button type="button" class="secondary more" onClick={() => setAll(true)}>
          Show all {rows.length} rows
        </button>
      )}
    </div>
  );
}
