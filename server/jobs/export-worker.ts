import crypto from "node:crypto";
import os from "node:os";
import type { DbHandle } from "../../db/client";
import { EXPORTS_CHANNEL } from "../core/exports/exports";
import { claimNextExport, dropWorkerId, failExportJob, holdWorkerId, LostExportLease, releaseDeadClaims, runExportJob } from "../core/exports/run";

export interface ExportWorkerOptions {
  /** How often to look for work when no announcement came (also picks up jobs whose worker crashed). */
  pollMs?: number;
  /** A job's lease: renewed at every progress step; when it runs out another instance may take the job. */
  leaseSeconds?: number;
  log?: (message: string, error?: unknown) => void;
  /** Told how each job this worker ran ended (/metrics). */
  onJobEnd?: (outcome: "done" | "failed") => void;
}

export interface ExportWorker {
  /** Look for work now. */
  kick(): void;
  /** Stops taking jobs and waits for the current one to stop (its lease is released by expiry). */
  stop(): Promise<void>;
}

/**
 * The background export worker of one app instance (DESIGN §8): claims jobs from the exports table with a lease,
 * so any instance may run any job and a crashed one's job is taken over; writes the file and progress 0-100.
 * Wakes on the exports channel (LISTEN/NOTIFY, across instances) and on a slow poll.
 */
export function startExportWorker(handle: DbHandle, options: ExportWorkerOptions = {}): ExportWorker {
  const pollMs = options.pollMs ?? 10_000;
  const leaseSeconds = options.leaseSeconds ?? 60;
  const log = options.log ?? (() => {});
  const workerId = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;
  holdWorkerId(workerId);
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;

  const schedule = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(kick, pollMs);
    timer.unref();
  };

  async function drain() {
    // A job whose worker died (killed on this host, or any other worker on PGlite) starts again now, not at lease end.
    await releaseDeadClaims(handle.db, workerId, { singleProcess: handle.kind === "pglite" });
    while (!stopped) {
      const job = await claimNextExport(handle.db, workerId, leaseSeconds);
      if (!job) return;
      try {
        await runExportJob(handle.db, job, workerId, leaseSeconds, () => stopped);
        options.onJobEnd?.("done");
      } catch (error) {
        if (error instanceof LostExportLease || stopped) continue;
        log(`export ${job.id} failed`, error);
        options.onJobEnd?.("failed");
        await failExportJob(handle.db, job.id, workerId, "Не удалось сформировать файл: нажмите «Перезапустить»").catch(() => {});
      }
    }
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((error) => log("export worker", error))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        } else schedule();
      });
  }

  void handle
    .listen(EXPORTS_CHANNEL, () => kick())
    .then((stop) => {
      if (stopped) void stop().catch(() => {});
      else unlisten = stop;
    })
    .catch((error) => log("export worker: LISTEN failed, polling only", error));
  kick();

  return {
    kick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => {});
      dropWorkerId(workerId);
      await unlisten?.().catch(() => {});
    },
  };
}
