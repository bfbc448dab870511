import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import type { Db } from "../../db/client";
import {
  afterFailedConversion,
  audioFileOf,
  type ClaimedRecording,
  claimFollowed,
  claimRecording,
  type ConversionStep,
  conversionStep,
  diskState,
  type DiskState,
  ensureFolders,
  followedNow,
  followStep,
  type FollowedRecording,
  freeSpace,
  leaveToQueue,
  MAX_FOLLOWED,
  nothingRecorded,
  notYet,
  recordingDone,
  recordingFailed,
  type RecordingsFolder,
  removeSpoolFiles,
  roomToRecord,
  spoolJob,
  type SpoolJob,
  sweepExpired,
  waitForRoom,
  sweepOrphanMetadata,
} from "../core/recordings/recordings";

const here = path.dirname(fileURLToPath(import.meta.url));
const CONVERTER = path.join(here, "..", "core", "recordings", "convert-cli.ts");
const FOLLOWER = path.join(here, "..", "core", "recordings", "follow-cli.ts");
const ROOT = path.join(here, "..", "..");

export interface RecordingsOptions {
  log?: (message: string, error?: unknown) => void;
  /** How often the queue is looked at (ms): a call's audio is ready about this long plus its conversion after the end. */
  everyMs?: number;
  sweepEveryMs?: number;
  diskEveryMs?: number;
  onConversion?: (outcome: "done" | "failed", seconds: number) => void;
  /** PUBLIC_URL: put in front of the signed link a `recording.ready` webhook event carries. */
  publicUrl?: string;
}

export interface Recordings {
  folder: RecordingsFolder;
  /** Room for one more recorded call (asked before every call: a cached statfs, at most a second old). */
  hasRoom(): boolean;
  /** The folder's size and free space as last measured (every minute; null before the first measure). */
  disk(): DiskState | null;
  /** Measures them now. */
  measure(): Promise<DiskState>;
  /**
   * Converts what waits now (after the pass under way, if any), starts following the calls in progress that are
   * due, and finishes the followed calls whose files are final; then answers (tests, the timer, a call's end).
   */
  drain(): Promise<void>;
  /** The conversion under way, if any (the fault test kills it). */
  converting(): ChildProcess | null;
  /** The process following calls in progress, if any (the fault test kills it). */
  following(): ChildProcess | null;
  stop(): Promise<void>;
}

/**
 * The recordings' background work on this instance (issue 28, decision 054): the conversion queue (one call at a
 * time, each in a child process off the event loop), the retention sweep, and the disk measure for /metrics and
 * the dashboard. Every instance runs it; the database hands each call to one of them.
 */
export function startRecordings(db: Db, folder: RecordingsFolder, options: RecordingsOptions = {}): Recordings {
  // DEBUG_RECORDINGS=1: the job's failures on stderr (tests run the app with its log silent).
  const log = process.env.DEBUG_RECORDINGS ? (m: string, e?: unknown) => console.error("REC", m, e ?? "") : (options.log ?? (() => {}));
  try {
    ensureFolders(folder);
  } catch (error) {
    log(`the recordings folder ${folder.dir} cannot be made`, error);
  }
  let room = { at: 0, ok: true };
  let disk: DiskState | null = null;
  let child: ChildProcess | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  const hasRoom = () => {
    if (Date.now() - room.at > 1000) {
      room = { at: Date.now(), ok: roomToRecord(folder, freeSpace(folder)?.free ?? null) };
    }
    return room.ok;
  };

  const runConverter = (job: { pcaps: string[]; metadata: string[]; output: string }) =>
    new Promise<number>((resolve, reject) => {
      const proc = spawn(process.execPath, ["--import", "tsx", CONVERTER, JSON.stringify(job)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      child = proc;
      let out = "";
      let err = "";
      proc.stdout!.on("data", (chunk) => (out += String(chunk)));
      proc.stderr!.on("data", (chunk) => (err += String(chunk)));
      proc.on("error", reject);
      proc.on("exit", (code, signal) => {
        child = null;
        if (code === 0) resolve((JSON.parse(out) as { ms: number }).ms);
        else reject(new Error(signal ? `преобразование прервано (${signal})` : err.trim().split("\n").pop() || `код выхода ${code}`));
      });
    });

  /** Does what core decided for the call (conversionStep, afterFailedConversion). */
  async function apply(call: ClaimedRecording, decided: ConversionStep): Promise<void> {
    switch (decided.step) {
      case "not-yet":
        return notYet(db, call.id);
      case "nothing-recorded":
        removeSpoolFiles(decided.job.files);
        return nothingRecorded(db, call.id);
      case "failed":
        return recordingFailed(db, call, decided.reason);
      case "wait-for-room":
        return waitForRoom(db, call.id);
      case "convert":
        return convert(call, decided.job, decided.neededBytes);
    }
  }

  async function convert(call: ClaimedRecording, job: SpoolJob, neededBytes: number) {
    const started = performance.now();
    try {
      fs.mkdirSync(path.dirname(job.output), { recursive: true });
      const ms = await runConverter({ pcaps: job.files.pcaps, metadata: [...job.files.finished, ...job.files.unfinished], output: job.output });
      await recordingDone(db, call.id, job.relative, ms, options.publicUrl);
      removeSpoolFiles(job.files);
      options.onConversion?.("done", (performance.now() - started) / 1000);
    } catch (error) {
      const reason = String((error as Error)?.message ?? error);
      log(`call ${call.id}: the recording's conversion failed (try ${call.attempts}): ${reason}`);
      options.onConversion?.("failed", (performance.now() - started) / 1000);
      await apply(call, afterFailedConversion(folder, neededBytes, reason));
    }
  }

  // Calls in progress, followed by one child process (follow-cli.ts) with an encoder each: at the hang-up only the
  // last seconds are left to encode (decision 054, 2026-11-29). A follow that fails leaves the call to the queue.
  interface Followed {
    result: Promise<{ ms: number }>;
    finishing: Promise<void> | null;
  }
  const followed = new Map<number, Followed>();
  const answers = new Map<number, { resolve: (value: { ms: number }) => void; reject: (error: Error) => void }>();
  let follower: ChildProcess | null = null;

  const followerProcess = (): ChildProcess => {
    if (follower) return follower;
    const proc = spawn(process.execPath, ["--import", "tsx", FOLLOWER], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    follower = proc;
    let err = "";
    proc.stderr!.on("data", (chunk) => (err = (err + String(chunk)).slice(-2000)));
    proc.stdin!.on("error", () => {}); // a follower that died says so on exit
    readline.createInterface({ input: proc.stdout! }).on("line", (line) => {
      const answer = JSON.parse(line) as { id: number; ms?: number; error?: string };
      const waiting = answers.get(answer.id);
      answers.delete(answer.id);
      if (answer.error === undefined) waiting?.resolve({ ms: answer.ms! });
      else waiting?.reject(new Error(answer.error));
    });
    proc.on("exit", (code, signal) => {
      if (follower === proc) follower = null;
      const reason = new Error(`запись во время звонка прервана (${signal ?? `код ${code}`}) ${err.trim().split("\n").pop() ?? ""}`.trim());
      for (const waiting of answers.values()) waiting.reject(reason);
      answers.clear();
    });
    return proc;
  };
  const tellFollower = (message: object) => follower?.stdin!.write(`${JSON.stringify(message)}\n`);

  const follow = (call: FollowedRecording) => {
    const { output } = audioFileOf(folder, call);
    fs.mkdirSync(path.dirname(output), { recursive: true });
    const result = new Promise<{ ms: number }>((resolve, reject) => answers.set(call.id, { resolve, reject }));
    const entry: Followed = { result, finishing: null };
    followed.set(call.id, entry);
    followerProcess();
    tellFollower({ follow: { id: call.id, spool: folder.spool, sipCallId: call.sipCallId, output } });
    // Failed during the call (the encoder or the follower died): the queue converts it after its end.
    result.catch(async (error) => {
      if (entry.finishing) return;
      followed.delete(call.id);
      log(`call ${call.id}: following its recording failed: ${String((error as Error)?.message ?? error)}`);
      await leaveToQueue(db, call.id).catch((e) => log("the recordings queue failed", e));
    });
  };

  /** The call ended and rtpengine finished its files: the follower reads the rest, and the audio is ready. */
  const finishFollowed = async (call: ClaimedRecording, entry: Followed, job: SpoolJob) => {
    const started = performance.now();
    tellFollower({ end: call.id });
    try {
      const { ms } = await entry.result;
      await recordingDone(db, call.id, job.relative, ms, options.publicUrl);
      removeSpoolFiles(job.files);
      options.onConversion?.("done", (performance.now() - started) / 1000);
    } catch (error) {
      log(`call ${call.id}: following its recording failed at its end: ${String((error as Error)?.message ?? error)}`);
      await leaveToQueue(db, call.id);
    } finally {
      followed.delete(call.id);
    }
  };

  const followPass = async () => {
    const finishing: Promise<void>[] = [];
    try {
      const rows = await followedNow(db, [...followed.keys()]);
      for (const [id, entry] of followed) {
        if (!entry.finishing) {
          const decided = await followStep(
            folder,
            rows.find((row) => row.id === id),
          );
          if (decided.step === "drop") {
            answers.delete(id);
            tellFollower({ end: id });
            followed.delete(id);
          } else if (decided.step === "finish") entry.finishing = finishFollowed(decided.call, entry, decided.job);
        }
        if (entry.finishing) finishing.push(entry.finishing);
      }
      if (!stopped) for (const call of await claimFollowed(db, MAX_FOLLOWED - followed.size)) follow(call);
      if (followed.size === 0 && follower) follower.stdin!.end(); // idle: it exits, and starts again when needed
      await Promise.all(finishing);
    } catch (error) {
      log("following the recordings of calls in progress failed", error);
    } finally {
      followRunning = null;
    }
  };
  let followRunning: Promise<void> | null = null;
  const followDrain = () => (followRunning ??= followPass());

  const pass = async () => {
    try {
      for (let call = await claimRecording(db); call && !stopped; call = await claimRecording(db))
        await apply(call, conversionStep(folder, call, await spoolJob(folder, call)));
    } catch (error) {
      log("the recordings queue failed", error);
    } finally {
      running = null;
    }
  };
  // A pass under way may have looked before what its caller waits for was there (a call ended just now): the
  // caller gets one more pass after it, shared by every caller meanwhile.
  let next: Promise<void> | null = null;
  const queueDrain = (): Promise<void> => {
    if (!running) return (running = pass());
    next ??= running.then(() => {
      next = null;
      return queueDrain();
    });
    return next;
  };
  const drain = async () => {
    await Promise.all([queueDrain(), followDrain()]);
  };

  const measure = async () => (disk = await diskState(folder));
  const sweep = async () => {
    try {
      await sweepExpired(db, folder);
      sweepOrphanMetadata(folder);
    } catch (error) {
      log("the recordings' retention sweep failed", error);
    }
  };
  void measure();
  const timers = [
    setInterval(() => void drain(), options.everyMs ?? 1000),
    setInterval(() => void sweep(), options.sweepEveryMs ?? 3_600_000),
    setInterval(() => void measure(), options.diskEveryMs ?? 60_000),
  ];
  for (const timer of timers) timer.unref();

  return {
    folder,
    hasRoom,
    disk: () => disk,
    measure,
    drain,
    converting: () => child,
    following: () => follower,
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      child?.kill("SIGTERM");
      follower?.kill("SIGTERM");
      await Promise.all([running?.catch(() => {}), followRunning?.catch(() => {})]);
    },
  };
}
