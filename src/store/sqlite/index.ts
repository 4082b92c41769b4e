/**
 * The SQLite store (better-sqlite3): one file, WAL, synchronous=NORMAL (a killed process
 * loses no committed row), prepared statements, one transaction per money movement. Each
 * domain of the Store (src/store/*.ts) is implemented in the file of the same name here.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import { requireFilePath } from "../../core/database-url.js";
import { Holds } from "../holds.js";
import type { AuditNoteOf } from "../audit.js";
import type { Store } from "../index.js";
import { sqliteAlerts } from "./alerts.js";
import { sqliteAudit } from "./audit.js";
import { sqliteBudget } from "./budget.js";
import { sqliteLevels } from "./budgets.js";
import { sqliteByok } from "./byok.js";
import { sqliteCatalog } from "./catalog.js";
import { sqliteModelPrices } from "./model-prices.js";
import { sqliteDashboard } from "./dashboard.js";
import { createPrivateFile, tightenJournals } from "./files.js";
import { sqliteJournal } from "./journal.js";
import { sqliteKeys } from "./keys.js";
import { sqliteLedger } from "./ledger.js";
import { sqliteMcp } from "./mcp.js";
import { migrations } from "./migrations.js";
import { sqliteMoney } from "./money.js";
import { promised, type SyncStore } from "./promised.js";
import { sqliteResponses } from "./responses.js";
import { sqliteUsageGroups } from "./usage-groups.js";
import { watchDataVersion } from "./watch.js";

function migrate(db: Database.Database): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  for (let v = current; v < migrations.length; v++) {
    writeTransaction(db, () => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

export function openSqliteStore(file: string): Store {
  requireFilePath(file); // a URL taken for a path would create a `scheme:` directory
  const onDisk = file !== ":memory:";
  if (onDisk) mkdirSync(dirname(file), { recursive: true });
  if (onDisk) createPrivateFile(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  migrate(db);
  if (onDisk) tightenJournals(file); // WAL mode and the migrations have created them by now
  // In-flight reservations live in memory: exact within the one gateway process that owns
  // this database (the rate limiter assumes the same), and a crash leaves nothing to undo.
  // Each request then costs one transaction: the settlement. A key with a budget holds the
  // same amount against it (src/core/budget.ts).
  const holds = new Holds();
  const levels = sqliteLevels(db, holds);
  const budgets = sqliteBudget(db, holds, levels);
  const journal = sqliteJournal(db);
  const { flush, ...money } = sqliteMoney(db, holds, budgets, levels, journal);
  const watch = watchDataVersion(() => db.pragma("data_version", { simple: true }) as number);
  const audit = sqliteAudit(db);
  // Audited calls (src/store/audit.ts) run the same synchronous methods inside one transaction with the append.
  const audited = (note: AuditNoteOf): Store => promised(audit.auditedView(sync, note));
  const sync: SyncStore = {
    kind: "sqlite",
    ...sqliteKeys(db, budgets),
    ...sqliteByok(db),
    setBudget: levels.setBudget,
    removeBudget: levels.removeBudget,
    listBudgets: levels.listBudgets,
    ...money,
    ...sqliteLedger(db),
    ...sqliteUsageGroups(db),
    ...sqliteResponses(db),
    ...sqliteDashboard(db),
    ...sqliteCatalog(db),
    ...sqliteModelPrices(db),
    ...sqliteAlerts(db),
    ...sqliteMcp(db),
    journalInflight: journal.journalInflight,
    leftInflight: journal.leftInflight,
    watch: watch.add,
    audited,
    appendAudit: audit.appendAudit,
    auditRecords: audit.auditRecords,
    auditHead: audit.auditHead,
    close: () => {
      watch.stop();
      flush();
      db.close();
    },
  };
  return promised(sync);
}
