import "./node-env";
import { createDb, DataDirLockedError, type DbHandle } from "../db/client";
import { seed } from "./seed";
import { sweepUploads } from "./core/bases/uploads";
import { buildApp } from "./app";
import { capHeapGrowth } from "./heap";
import { loadConfig } from "./config";
import { serveBackups } from "./ops/backup-socket";

capHeapGrowth();

/** Starts everything: database (migrated, seeded), the one HTTP server, graceful shutdown. */
async function main() {
  const config = loadConfig();
  let handle: DbHandle;
  try {
    handle = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  await handle.migrate();
  // Uploads a killed process left behind go now, not a day later (another live instance's stay: their owner runs).
  sweepUploads();
  const seeded = await seed(handle.db, config.admin);
  if (seeded.createdAdmin) {
    const a = seeded.createdAdmin;
    console.log(
      [
        "",
        "Создан администратор (запишите, пароль больше не будет показан):",
        `  логин:        ${a.login}`,
        `  пароль:       ${a.generated ? a.password : "(из ADMIN_PASSWORD)"}`,
        `  ключ доступа: ${a.accessKey}`,
        "",
      ].join("\n"),
    );
  }

  const app = await buildApp({ handle, config, logger: true });
  await app.listen({ port: config.port, host: config.host });
  // The embedded database is locked to this process: `npm run backup` asks it for a copy (docs/operations.md).
  const stopBackups =
    handle.kind === "pglite" && !config.dataDir.startsWith("memory://")
      ? await serveBackups(handle.db, config.dataDir, (message, error) => app.log.error({ err: error }, message))
      : async () => {};
  console.log(`Готово: http://localhost:${config.port} (база: ${handle.kind === "pglite" ? `PGlite в ${config.dataDir}` : "Postgres"})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: останавливаюсь...`);
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await stopBackups();
      await app.close(); // stops accepting, finishes in-flight requests
      await handle.close();
    } finally {
      clearTimeout(timer);
      process.exit(0);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
