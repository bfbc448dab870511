import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { pipeline } from "node:stream/promises";
import { PassThrough } from "node:stream";
import zlib from "node:zlib";
import { createDb, DataDirLockedError } from "../../db/client";
import { loadConfig } from "../config";
import { writeBackup } from "./backup";
import { backupSocketPath } from "./backup-socket";

/**
 * `npm run backup -- <file or folder> [--keep N]`: a consistent backup of the database in DATABASE_URL or
 * DATA_DIR, the app running or not (docs/operations.md). Into a folder it writes lead-desk-<time>.backup.gz and,
 * with --keep N, deletes the older ones beyond the N newest. Written aside and renamed when whole.
 */
const PREFIX = "lead-desk-";
const SUFFIX = ".backup.gz";

function usage(message: string): never {
  console.error(`${message}\nИспользование: npm run backup -- <файл или папка> [--keep N]`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  let target: string | undefined;
  let keep: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--keep") {
      keep = Number(argv[++i]);
      if (!Number.isInteger(keep) || keep < 1) usage("--keep: укажите целое число копий, не меньше 1.");
    } else if (!target) target = argv[i];
    else usage(`Лишний аргумент: ${argv[i]}`);
  }
  if (!target) usage("Укажите, куда записать копию.");
  return { target, keep };
}

/** Lines of a backup the running app serves on its socket; null when no app serves it. */
async function fromRunningApp(dataDir: string): Promise<net.Socket | null> {
  const socketPath = backupSocketPath(dataDir);
  if (!fs.existsSync(socketPath)) return null;
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once("connect", () => resolve(socket));
    socket.once("error", () => resolve(null)); // a socket left by a killed app
  });
}

async function main() {
  const { target, keep } = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  const isFolder = fs.existsSync(target) && fs.statSync(target).isDirectory();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = isFolder ? path.join(target, `${PREFIX}${stamp}${SUFFIX}`) : target;
  const partial = `${file}.partial`;
  const lines = new PassThrough();
  const written = pipeline(lines, zlib.createGzip(), fs.createWriteStream(partial, { mode: 0o600 }));
  const write = (line: string) => new Promise<void>((resolve) => (lines.write(`${line}\n`) ? resolve() : lines.once("drain", resolve)));

  let complete = false;
  const socket = config.databaseUrl ? null : await fromRunningApp(config.dataDir);
  if (socket) {
    // The running app writes it; the last line says it is whole.
    let last = "";
    for await (const line of readline.createInterface({ input: socket, crlfDelay: Infinity })) {
      await write(line);
      last = line;
    }
    complete = last.startsWith('["end"');
  } else {
    let handle;
    try {
      handle = await createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      console.error(`${error.message}\nЗапущенный сервер не отвечает на ${backupSocketPath(config.dataDir)}: обновите его или остановите для копии.`);
      process.exit(1);
    }
    try {
      await writeBackup(handle.db, write);
      complete = true;
    } finally {
      await handle.close();
    }
  }
  lines.end();
  await written;
  if (!complete) {
    fs.rmSync(partial, { force: true });
    console.error("Резервная копия не сделана: сервер оборвал её (подробности в его журнале).");
    process.exit(1);
  }
  fs.renameSync(partial, file);
  console.log(`Резервная копия записана: ${file}`);
  if (isFolder && keep) {
    const old = fs
      .readdirSync(target)
      .filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX))
      .sort()
      .reverse()
      .slice(keep);
    for (const name of old) fs.rmSync(path.join(target, name));
    if (old.length) console.log(`Удалены старые копии: ${old.length}`);
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
