import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrationsFolder } from "../../db/client";

interface JournalEntry {
  idx: number;
  when: number;
  tag: string;
}

/** The committed migrations, oldest first (drizzle's journal). */
export function migrationJournal(): JournalEntry[] {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8"));
  return journal.entries as JournalEntry[];
}

/**
 * A temporary migrations folder holding only the first `count` migrations: a restore brings the schema to the
 * backup's version before loading its rows, and the upgrade test builds the first landed schema. `remove()` deletes it.
 */
export function migrationsUpTo(count: number): { folder: string; remove(): void } {
  const entries = migrationJournal();
  if (count < 1 || count > entries.length) throw new Error(`Нет ${count}-й миграции (их ${entries.length})`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-migrations-"));
  fs.mkdirSync(path.join(folder, "meta"));
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8"));
  journal.entries = entries.slice(0, count);
  fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify(journal, null, 2));
  for (const entry of journal.entries as JournalEntry[]) {
    fs.copyFileSync(path.join(migrationsFolder, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  }
  return { folder, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
}
