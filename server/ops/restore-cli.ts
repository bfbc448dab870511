import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import zlib from "node:zlib";
import { createDb } from "../../db/client";
import { loadConfig } from "../config";
import { RestoreRefused, restoreBackup } from "./backup";

/**
 * `npm run restore -- <file>`: loads a backup into a new DATA_DIR (missing or empty folder) or the empty
 * database in DATABASE_URL, then brings it to this version's schema (docs/operations.md).
 */
async function main() {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    console.error("Использование: npm run restore -- <файл копии>");
    process.exit(2);
  }
  if (!fs.existsSync(file)) throw new RestoreRefused(`Нет файла ${file}.`);
  const config = loadConfig();
  if (!config.databaseUrl) {
    const dir = path.resolve(config.dataDir);
    if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
      throw new RestoreRefused(`Папка данных ${dir} не пуста: восстановление делается только в новую папку. Укажите в DATA_DIR новую папку.`);
    }
  }
  // Two connections: migrating holds one for its advisory lock and runs on the other.
  const handle = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    const input = fs.createReadStream(file).pipe(zlib.createGunzip());
    const { sums } = await restoreBackup(handle, readline.createInterface({ input, crlfDelay: Infinity }));
    const rows = Object.values(sums).reduce((n, s) => n + s.rows, 0);
    console.log(`Восстановлено из ${file}: таблиц ${Object.keys(sums).length}, строк ${rows}; все совпали с копией.`);
  } finally {
    await handle.close();
  }
}

main().catch((error) => {
  console.error(error instanceof RestoreRefused ? error.message : error);
  process.exit(1);
});
