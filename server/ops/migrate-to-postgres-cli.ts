import path from "node:path";
import { PassThrough } from "node:stream";
import readline from "node:readline";
import { sql } from "drizzle-orm";
import { createDb, DataDirLockedError, type Db, type DbHandle } from "../../db/client";
import { selectRows } from "../../db/typed-sql";
import { loadConfig } from "../config";
import { describeNonEmpty, RestoreRefused, restoreBackup, writeBackup, type TableSums } from "./backup";

/**
 * `npm run migrate-to-postgres`: copies the embedded database (DATA_DIR) into the empty Postgres database in
 * DATABASE_URL, the way a backup and a restore would (every table in one snapshot, checked by counts and checksums),
 * then checks that every sequence continues where it did, and says what to change (docs/deploy.md).
 * The app must be stopped: what it wrote after the copy would stay behind.
 */
async function main() {
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new RestoreRefused(
      "Укажите в DATABASE_URL пустую базу Postgres, куда перенести данные (например postgres://leaddesk@127.0.0.1:5432/leaddesk), " +
        "и в DATA_DIR папку встроенной базы.",
    );
  }
  const dataDir = path.resolve(config.dataDir);
  let source: DbHandle;
  try {
    source = await createDb({ dataDir });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      throw new RestoreRefused(`${error.message}\nОстановите приложение на время переноса: иначе то, что оно запишет после копии, не перенесётся.`);
    }
    throw error;
  }
  const target = await createDb({ databaseUrl: config.databaseUrl, poolSize: 2 });
  try {
    await source.migrate(); // a DATA_DIR of an older version moves as this version's schema
    const nonEmpty = await describeNonEmpty(target.db);
    if (nonEmpty) throw new RestoreRefused(`База данных не пуста: ${nonEmpty}. Перенос делается только в новую пустую базу.`);
    // The backup's lines go straight into the restore, with the stream's backpressure; if the restore stops, the
    // copy's writes fail too, so its snapshot transaction ends before the database closes.
    const lines = new PassThrough();
    const write = (line: string) =>
      new Promise<void>((resolve, reject) => {
        if (lines.destroyed) return reject(new Error("restore stopped"));
        if (lines.write(`${line}\n`)) return resolve();
        lines.once("drain", resolve);
        lines.once("close", () => reject(new Error("restore stopped")));
      });
    const reading = writeBackup(source.db, write).finally(() => lines.end());
    let sums: TableSums;
    try {
      ({ sums } = await restoreBackup(target, readline.createInterface({ input: lines, crlfDelay: Infinity })));
      await reading;
    } catch (error) {
      lines.destroy();
      await reading.catch(() => {});
      throw error;
    }

    const [before, after] = [await sequences(source.db), await sequences(target.db)];
    const wrong = Object.keys(before).filter((name) => after[name] !== before[name]);
    if (wrong.length) throw new Error(`Счётчики ${wrong.join(", ")} перенесены неверно: перенос не завершён, удалите базу и повторите.`);

    const rows = Object.values(sums).reduce((n, s) => n + s.rows, 0);
    const largest = Object.entries(sums)
      .sort((a, b) => b[1].rows - a[1].rows)
      .slice(0, 6)
      .map(([name, s]) => `${name} ${s.rows}`)
      .join(", ");
    console.log(
      [
        `Перенесено из ${dataDir} в Postgres: таблиц ${Object.keys(sums).length}, строк ${rows} (${largest}); ` +
          `строки и контрольные суммы всех таблиц совпали, счётчиков проверено ${Object.keys(before).length}.`,
        "Дальше:",
        "  1. Оставьте DATABASE_URL в файле настроек приложения (например /etc/leaddesk/leaddesk.env): с ним приложение работает с Postgres.",
        "  2. Запустите приложение (systemctl start leaddesk) и проверьте вход и список баз.",
        `  3. Папку ${dataDir} приложение больше не использует: сохраните её, пока не убедитесь, что всё на месте, затем удалите.`,
      ].join("\n"),
    );
  } finally {
    await source.close();
    await target.close();
  }
}

/** Each sequence's next value, by name. */
async function sequences(db: Db): Promise<Record<string, string>> {
  const rows = await selectRows(
    db,
    { name: sql<string>`sequencename`, value: sql<string | null>`last_value::text` },
    (list) => sql`select ${list} from pg_sequences where schemaname = 'public'`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.value ?? "unused"]));
}

main().catch((error) => {
  console.error(error instanceof RestoreRefused ? error.message : error);
  process.exit(1);
});
