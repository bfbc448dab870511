import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Db } from "../../db/client";
import { writeBackup } from "./backup";

/** Where a running app with an embedded database serves backups: inside its DATA_DIR, readable as the data is. */
export const backupSocketPath = (dataDir: string) => path.join(path.resolve(dataDir), "backup.sock");

/** Unix sockets take a path of about 107 bytes at most. */
const MAX_SOCKET_PATH = 100;

/**
 * The running app holds its PGlite DATA_DIR locked, so `npm run backup` cannot open it: the app serves each
 * connection to this socket one backup (JSON lines, docs/decisions/028) through its own connection. Whoever may
 * connect could read the files of DATA_DIR anyway: the socket is the owner's only (0600).
 */
export async function serveBackups(db: Db, dataDir: string, log: (message: string, error?: unknown) => void): Promise<() => Promise<void>> {
  const socketPath = backupSocketPath(dataDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    log(`Путь ${socketPath} слишком длинный для сокета: резервные копии на ходу недоступны (остановите сервер для копии)`);
    return async () => {};
  }
  // A socket left by a killed process: ours now, since we hold the DATA_DIR lock.
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    const write = (line: string) =>
      new Promise<void>((resolve, reject) => {
        if (socket.destroyed) return reject(new Error("backup reader went away"));
        if (socket.write(`${line}\n`)) resolve();
        else socket.once("drain", resolve);
      });
    writeBackup(db, write).then(
      () => socket.end(),
      (error) => {
        log("Резервная копия не сделана", error);
        socket.destroy();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
