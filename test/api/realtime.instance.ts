/**
 * One app instance for the multi-instance realtime test: the real app (API and hub, no pages) on the Postgres
 * in DATABASE_URL, listening on a loopback port it prints as `{"port": N}`. Runs until SIGTERM.
 */
import type { AddressInfo } from "node:net";
import { createDb } from "../../db/client";
import { buildApp } from "../../server/app";
import { loadConfig } from "../../server/config";

const config = loadConfig({ ...process.env, LOG_LEVEL: "silent" });
const handle = await createDb({ databaseUrl: config.databaseUrl, poolSize: 4 });
const app = await buildApp({ handle, config, web: false });
await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port })}\n`);

process.on("SIGTERM", async () => {
  await app.close();
  await handle.close();
  process.exit(0);
});
