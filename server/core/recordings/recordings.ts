import fs from "node:fs";
import path from "node:path";
import { and, desc, eq, gt, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { calls, filters, recordingPlays, users, type CallDirection, type RecordingState } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { type AppError, forbidden, notFound } from "../errors";
import { bigIdSchema, parseInput } from "../validation";
import { playKeySchema } from "../audit/heard";
import { callSpoolFiles } from "./spool";
import { enqueueEvent } from "../webhooks/queue";
import { checkRecordingLink, signedRecordingPath } from "../webhooks/links";

/**
 * Call recordings (issue 28, decision 054). The app answers the proxy's question before a call whether to record
 * it (the manager's topic, and room on the disk); rtpengine writes the call's pcap into the spool folder; a
 * worker turns each finished call's pcap into Ogg Opus in a child process (convert-cli.ts; a long call is encoded
 * while it runs, follow-cli.ts) and removes the pcap;
 * admins, and managers for their own calls where the topic allows it, play the file; a sweeper deletes files
 * older than the topic keeps them.
 *
 * The folder (RECORDINGS_DIR): `spool/` is rtpengine's --recording-dir, `audio/` the app's files. Several app
 * hosts and the telephony host share it (docs/telephony.md); the database says which host converts which call.
 */
export interface RecordingsFolder {
  dir: string;
  spool: string;
  audio: string;
  /** Below this many free bytes no call is recorded (the call goes on, its row says why). */
  minFreeBytes: number;
  /** Below this many free bytes the dashboard warns. */
  warnFreeBytes: number;
}

export function recordingsFolder(dir: string, minFreeMb: number, warnFreeMb: number): RecordingsFolder {
  const root = path.resolve(dir);
  return {
    dir: root,
    spool: path.join(root, "spool"),
    audio: path.join(root, "audio"),
    minFreeBytes: minFreeMb * 2 ** 20,
    warnFreeBytes: warnFreeMb * 2 ** 20,
  };
}

/** Conversion tries before a recording is marked failed (its pcap stays in the spool for a person to look at). */
export const MAX_ATTEMPTS = 5;
/** A claim this old is a dead worker's (a killed app): another one takes the call. */
const LEASE_SECONDS = 120;
/** rtpengine writes the final metadata when it ends the call; without it this long after the end, it lost the call. */
export const LOST_AFTER_SECONDS = 30;

export interface DiskState {
  freeBytes: number;
  totalBytes: number;
  /** Bytes in the audio files and the spool. */
  usedBytes: number;
  /** The folder is missing or unreadable. */
  error: string | null;
}

/** The bytes of a recording a request is served: one range (206), the whole file (200), or none (416). */
export type ServedBytes = { start: number; end: number } | "whole" | "bad";

/** The free space of the folder's file system, or null when the folder cannot be read. */
export function freeSpace(folder: RecordingsFolder): { free: number; total: number } | null {
  try {
    const stats = fs.statfsSync(folder.dir);
    return { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
  } catch {
    return null;
  }
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fs.promises.stat(full).catch(() => null))?.size ?? 0;
  }
  return total;
}

/** The folder's size and free space, for /metrics and the dashboard (walks the folder: call it seldom). */
export async function diskState(folder: RecordingsFolder): Promise<DiskState> {
  const space = freeSpace(folder);
  if (!space) return { freeBytes: 0, totalBytes: 0, usedBytes: 0, error: `папка записей ${folder.dir} недоступна` };
  return { freeBytes: space.free, totalBytes: space.total, usedBytes: await folderBytes(folder.dir), error: null };
}

/**
 * The folders exist (a missing one is made at start, so rtpengine and the worker find them). The spool is
 * group-writable whatever the umask: rtpengine, another user in the app's group, writes there.
 */
export function ensureFolders(folder: RecordingsFolder): void {
  for (const dir of [folder.dir, folder.audio]) fs.mkdirSync(dir, { recursive: true });
  for (const dir of [folder.spool, ...["pcaps", "metadata", "tmp"].map((d) => path.join(folder.spool, d))]) {
    if (fs.existsSync(dir)) continue;
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o2775);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The conversion queue, in the calls table.

export interface ClaimedRecording {
  id: number;
  sipCallId: string;
  startedAt: Date;
  endedAt: Date;
  attempts: number;
  answered: boolean;
}

/** What a claim of the queue (or a followed call's renewal) reads of each call. */
const claimedColumns = {
  id: calls.id,
  sipCallId: calls.sipCallId,
  startedAt: calls.startedAt,
  endedAt: calls.endedAt,
  attempts: calls.recordingAttempts,
  answered: sql<boolean>`${calls.answeredAt} is not null`,
};

/**
 * The next ended call waiting for its conversion, claimed for LEASE_SECONDS (one instance takes it; a killed
 * one's claim runs out and another takes it again). The lease also spaces the retries of a failed one.
 */
export async function claimRecording(db: Db): Promise<ClaimedRecording | null> {
  const [row] = await db
    .update(calls)
    .set({
      recordingLeaseUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
      recordingAttempts: sql`${calls.recordingAttempts} + 1`,
    })
    .where(
      eq(
        calls.id,
        sql`(select id from calls where recording = 'pending' and ended_at is not null and sip_call_id is not null
          and (recording_lease_until is null or recording_lease_until < now()) order by id limit 1 for update skip locked)`,
      ),
    )
    .returning(claimedColumns);
  // The claim's own where clause asks for sip_call_id and ended_at (both nullable columns).
  if (!row || row.sipCallId === null || row.endedAt === null) return null;
  return { ...row, sipCallId: row.sipCallId, endedAt: row.endedAt, answered: Boolean(row.answered) };
}

/**
 * Calls followed while they run (decision 054, 2026-11-29): answered this long ago and still going. A shorter call
 * is converted after its end in well under a second of encoding, and most calls a centre makes end sooner.
 */
export const FOLLOW_AFTER_SECONDS = 20;
/** Calls one instance follows at once (an opusenc each, about 4 MB; the encoding of all costs ~1% of a core each). */
export const MAX_FOLLOWED = 64;

export interface FollowedRecording {
  id: number;
  sipCallId: string;
  startedAt: Date;
}

/**
 * Recorded calls in progress for this instance to follow (at most `limit`), claimed for LEASE_SECONDS as the
 * queue claims ended ones; the instance renews the lease while it follows, so no other one takes the call, and a
 * killed instance's calls are followed anew or, once ended, converted by the queue. No try is counted unless the
 * follow fails (leaveToQueue).
 */
export async function claimFollowed(db: Db, limit: number): Promise<FollowedRecording[]> {
  if (limit <= 0) return [];
  const rows = await db
    .update(calls)
    .set({ recordingLeaseUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
    .where(
      inArray(
        calls.id,
        sql`(select id from calls where recording = 'pending' and ended_at is null and sip_call_id is not null
          and answered_at < now() - make_interval(secs => ${FOLLOW_AFTER_SECONDS}) and recording_attempts = 0
          and (recording_lease_until is null or recording_lease_until < now()) order by id limit ${limit} for update skip locked)`,
      ),
    )
    .returning({ id: calls.id, sipCallId: calls.sipCallId, startedAt: calls.startedAt });
  return rows.flatMap((row) => (row.sipCallId === null ? [] : [{ ...row, sipCallId: row.sipCallId }]));
}

/**
 * The followed calls' rows now, their leases renewed: each one's end (null while it goes on), attempts and
 * whether it was answered, as the queue's claim answers them. A row no longer pending is left out.
 */
export async function followedNow(db: Db, ids: number[]): Promise<Array<Omit<ClaimedRecording, "endedAt"> & { endedAt: Date | null }>> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(calls)
    .set({ recordingLeaseUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
    .where(and(inArray(calls.id, ids), eq(calls.recording, "pending")))
    .returning(claimedColumns);
  return rows.map((row) => ({ ...row, sipCallId: row.sipCallId ?? "", answered: Boolean(row.answered) }));
}

/**
 * A follow that failed (its encoder or the follower died): one try used, and the call goes to the queue, which
 * converts it from its pcaps as soon as it has ended. It is not followed again (only calls with no try are).
 */
export async function leaveToQueue(db: Db, id: number): Promise<void> {
  await db
    .update(calls)
    .set({ recordingLeaseUntil: null, recordingAttempts: sql`${calls.recordingAttempts} + 1` })
    .where(and(eq(calls.id, id), eq(calls.recording, "pending")));
}

/** Not yet: rtpengine has not finished the call's files. Tried again in a moment, not counted as a try. */
export async function notYet(db: Db, id: number): Promise<void> {
  await db
    .update(calls)
    .set({ recordingAttempts: sql`${calls.recordingAttempts} - 1`, recordingLeaseUntil: sql`now() + interval '1 second'` })
    .where(eq(calls.id, id));
}

/** What a row waiting for room says (the disk filled during the call or its conversion). */
export const WAITING_FOR_ROOM = "нет места в папке записей, запись будет сделана, когда место освободится";

/**
 * No room for the audio: the call's pcap stays in the spool and the conversion waits, looked at again every 30 s,
 * without using up its tries (a full disk is not the recording's fault, and giving up would lose it).
 */
export async function waitForRoom(db: Db, id: number): Promise<void> {
  await db
    .update(calls)
    .set({
      recordingAttempts: sql`${calls.recordingAttempts} - 1`,
      recordingError: WAITING_FOR_ROOM,
      recordingLeaseUntil: sql`now() + interval '30 seconds'`,
    })
    .where(eq(calls.id, id));
}

/** A call never answered has nothing to hear: no recording on its row (its spool files are removed). */
export async function nothingRecorded(db: Db, id: number): Promise<void> {
  await db.update(calls).set({ recording: null, recordingLeaseUntil: null, recordingAttempts: 0 }).where(eq(calls.id, id));
}

/**
 * The recording is ready: its row says so, and `recording.ready` is queued in the same transaction (issue 44) with a
 * signed link that works for the receiver for RECORDING_LINK_HOURS (`publicUrl`, PUBLIC_URL, in front of its path).
 */
export async function recordingDone(db: Db, id: number, file: string, ms: number, publicUrl = ""): Promise<void> {
  const link = await signedRecordingPath(db, id);
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(calls)
      .set({ recording: "ready", recordingFile: file, recordingMs: ms, recordingError: null, recordingLeaseUntil: null })
      .where(eq(calls.id, id))
      .returning({ contactId: calls.contactId, userId: calls.userId, number: calls.number, direction: calls.direction });
    if (!row) return;
    const clientId = row.contactId == null ? null : Number(row.contactId);
    await enqueueEvent(
      tx as unknown as Db,
      "recording.ready",
      {
        callId: id,
        clientId,
        userId: row.userId,
        number: row.number,
        direction: row.direction,
        durationMs: ms,
        url: `${publicUrl.replace(/\/+$/, "")}${link.path}`,
        urlExpiresAt: link.expiresAt,
      },
      clientId,
    );
  });
}

/**
 * A recording by its signed link (`recording.ready`'s url): no account; a wrong or expired link is refused. Each
 * fetch that serves the file's first byte is written in the access log as a download by the link (no user): the
 * record of who touched the recording includes the integrations it was sent to.
 */
export async function sharedRecording(
  db: Db,
  folder: RecordingsFolder,
  raw: unknown,
  served: (size: number) => ServedBytes,
): Promise<{ file: string; size: number; served: ServedBytes }> {
  const id = await checkRecordingLink(db, raw);
  const [row] = await db.select({ recording: calls.recording, file: calls.recordingFile }).from(calls).where(eq(calls.id, id));
  if (!row || row.recording !== "ready" || !row.file) throw notFound("Записи этого звонка нет", "recording_not_found");
  const file = path.join(folder.audio, row.file);
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined) throw notFound("Файл записи не найден в папке записей", "recording_not_found");
  const bytes = served(size);
  if (bytes === "whole" || (bytes !== "bad" && bytes.start === 0)) {
    await db.insert(recordingPlays).values({ callId: id, userId: null, download: true, byLink: true });
  }
  return { file, size, served: bytes };
}

/** A failed try: the reason on the row, tried again later (after 10 s, 40 s, 90 s...), failed for good after MAX_ATTEMPTS. */
export async function recordingFailed(db: Db, call: ClaimedRecording, reason: string): Promise<void> {
  const last = call.attempts >= MAX_ATTEMPTS;
  await db
    .update(calls)
    .set({
      recording: last ? "failed" : "pending",
      recordingError: reason.slice(0, 500),
      recordingLeaseUntil: last ? null : sql`now() + make_interval(secs => ${10 * call.attempts * call.attempts})`,
    })
    .where(eq(calls.id, call.id));
}

/**
 * A pcap written to this recently may still be growing: rtpengine still relays the call although the proxy logged
 * its end (a BYE that deleted nothing in rtpengine). Its audio is converted once it has been still this long.
 */
export const QUIET_SECONDS = 5;

/**
 * What the worker converts for one call: its spool files, or null while rtpengine may still be writing them. The
 * conversion reads a pcap to its end as it is then (a packet cut at the end is dropped), so it starts only when
 * rtpengine has finished the call's files, or, without the final metadata, when the call is long over and its pcaps
 * have stopped growing (decision 054, "following a growing pcap").
 */
export async function spoolJob(folder: RecordingsFolder, call: ClaimedRecording, now = Date.now()) {
  const files = await callSpoolFiles(folder.spool, call.sipCallId);
  const lost = now - call.endedAt.getTime() > LOST_AFTER_SECONDS * 1000;
  if (files.finished.length === 0 && !lost) return null;
  if (files.finished.length === 0) {
    const stats = await Promise.all(files.pcaps.map((file) => fs.promises.stat(file).catch(() => null)));
    if (stats.some((stat) => stat && now - stat.mtimeMs < QUIET_SECONDS * 1000)) return null;
  }
  return { files, ...audioFileOf(folder, call) };
}

/** Where a call's audio goes: `audio/YYYY-MM/<call id>.ogg` by the month the call started. */
export function audioFileOf(folder: RecordingsFolder, call: { id: number; startedAt: Date }): { relative: string; output: string } {
  const relative = path.join(call.startedAt.toISOString().slice(0, 7), `${call.id}.ogg`);
  return { relative, output: path.join(folder.audio, relative) };
}

export type SpoolJob = NonNullable<Awaited<ReturnType<typeof spoolJob>>>;

/**
 * Room on the folder's disk to record one more call: free space at RECORDINGS_MIN_FREE_MB or more (the one place
 * the threshold is compared: the check before each call and the dashboard's warning both ask this).
 */
export function roomToRecord(folder: RecordingsFolder, freeBytes: number | null): boolean {
  return freeBytes !== null && freeBytes >= folder.minFreeBytes;
}

/**
 * Room for a call's audio: the pcaps' size, a safe bound (the audio is about a quarter of it). Not
 * RECORDINGS_MIN_FREE_MB, which only stops new calls being recorded.
 */
export function roomToConvert(folder: RecordingsFolder, neededBytes: number): boolean {
  return (freeSpace(folder)?.free ?? 0) >= neededBytes;
}

/** What the conversion worker does with a call it claimed (decision 054); the job (server/jobs/recordings.ts) does it. */
export type ConversionStep =
  /** rtpengine may still be writing its files: the call waits for the next pass. */
  | { step: "not-yet" }
  /** An unanswered call: nothing was said, its spool files go and its row says so. */
  | { step: "nothing-recorded"; job: SpoolJob }
  /** A failed try (after MAX_ATTEMPTS the recording is failed). */
  | { step: "failed"; reason: string }
  /** The disk is full: the pcaps wait in the spool, and no try is counted. */
  | { step: "wait-for-room" }
  | { step: "convert"; job: SpoolJob; neededBytes: number };

export function conversionStep(folder: RecordingsFolder, call: ClaimedRecording, job: SpoolJob | null): ConversionStep {
  if (!job) return { step: "not-yet" };
  if (!call.answered) return { step: "nothing-recorded", job };
  if (job.files.pcaps.length === 0) return { step: "failed", reason: "rtpengine не записал разговор: в папке записей нет его pcap" };
  const neededBytes = job.files.pcaps.reduce((sum, file) => sum + (fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0), 0);
  if (!roomToConvert(folder, neededBytes)) return { step: "wait-for-room" };
  return { step: "convert", job, neededBytes };
}

/** What the job does with a call it follows (decision 054, 2026-11-29), as conversionStep says it for the queue. */
export type FollowStep =
  /** The row is no longer pending (nothing to make any more): the follower stops reading it, its audio unused. */
  | { step: "drop" }
  /** The call goes on, or rtpengine has not finished its files: the follower keeps reading. */
  | { step: "go-on" }
  /** Ended and its files final: the follower reads the rest, and the audio is ready. */
  | { step: "finish"; call: ClaimedRecording; job: SpoolJob };

export async function followStep(
  folder: RecordingsFolder,
  row: (Omit<ClaimedRecording, "endedAt"> & { endedAt: Date | null }) | undefined,
): Promise<FollowStep> {
  if (!row) return { step: "drop" };
  if (row.endedAt === null) return { step: "go-on" };
  const call = { ...row, endedAt: row.endedAt };
  const job = await spoolJob(folder, call);
  return job ? { step: "finish", call, job } : { step: "go-on" };
}

/** A conversion that failed: with the disk filled while it wrote, not a failed try (it waits for room). */
export function afterFailedConversion(folder: RecordingsFolder, neededBytes: number, reason: string): ConversionStep {
  return roomToConvert(folder, neededBytes) ? { step: "failed", reason } : { step: "wait-for-room" };
}

/** Once the audio file is whole: the call's pcaps and metadata go (a pcap is kept only while it is needed). */
export function removeSpoolFiles(files: { pcaps: string[]; finished: string[]; unfinished: string[] }): void {
  for (const file of [...files.pcaps, ...files.finished, ...files.unfinished]) fs.rmSync(file, { force: true });
}

/** The dashboard's warning about the recordings folder, or null while there is room. */
export function diskWarning(folder: RecordingsFolder, disk: DiskState | null): string | null {
  if (!disk) return null;
  if (disk.error) return `Записи разговоров: ${disk.error}. Звонки идут без записи.`;
  const gb = (bytes: number) => (bytes / 2 ** 30).toLocaleString("ru-RU", { maximumFractionDigits: 1 });
  if (!roomToRecord(folder, disk.freeBytes)) {
    return `Записи разговоров: на диске осталось ${gb(disk.freeBytes)} ГБ, звонки идут без записи. Освободите место или сократите срок хранения записей.`;
  }
  if (disk.freeBytes < folder.warnFreeBytes) {
    return `Записи разговоров: на диске осталось ${gb(disk.freeBytes)} ГБ. При ${gb(folder.minFreeBytes)} ГБ звонки перестанут записываться.`;
  }
  return null;
}

export interface RecordedCall {
  id: number;
  at: string;
  manager: string | null;
  number: string;
  direction: CallDirection;
  talkSeconds: number;
  playable: boolean;
  recordingNote: string | null;
}

/** The newest recorded calls (the dashboard's list, admins): each with its player or what became of its recording. */
export async function recentRecordedCalls(db: Db, actor: Actor, limit = 20): Promise<RecordedCall[]> {
  requireAdmin(actor);
  const rows = await db
    .select({ call: calls, manager: users.login })
    .from(calls)
    .leftJoin(users, eq(users.id, calls.userId))
    .where(and(isNotNull(calls.recording), sql`not (${calls.recording} = 'pending' and ${neverAnswered})`))
    .orderBy(desc(calls.startedAt), desc(calls.id))
    .limit(limit);
  return rows.map(({ call, manager }) => ({
    id: call.id,
    at: call.startedAt.toISOString(),
    manager,
    number: call.number,
    direction: call.direction,
    talkSeconds: call.talkSeconds,
    playable: call.recording === "ready",
    recordingNote: recordingNote(call),
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Retention.

/**
 * Deletes the audio of calls older than their topic's retention days; the row keeps «удалена по сроку хранения».
 * The retention is the topic's as it is now; a deleted topic's stays with its calls (copied at the deletion,
 * deleteFilter), so its recordings expire all the same. A batch at a time; answers how many went.
 */
export async function sweepExpired(db: Db, folder: RecordingsFolder, batch = 500): Promise<number> {
  const days = sql`coalesce(${filters.recordingRetentionDays}, ${calls.recordingRetentionDays})`;
  const due = await db
    .select({ id: calls.id, file: calls.recordingFile })
    .from(calls)
    .leftJoin(filters, eq(filters.id, calls.filterId))
    .where(and(eq(calls.recording, "ready"), isNotNull(days), lt(calls.startedAt, sql`now() - make_interval(days => ${days})`)))
    .limit(batch);
  for (const row of due) if (row.file) fs.rmSync(path.join(folder.audio, row.file), { force: true });
  if (due.length > 0) {
    await db
      .update(calls)
      .set({ recording: "expired", recordingFile: null })
      .where(
        inArray(
          calls.id,
          due.map((row) => row.id),
        ),
      );
  }
  return due.length;
}

/**
 * Metadata rtpengine finished after its call's audio was made without it: a call it dropped only on its media
 * timeout (a dead browser's call ends with Kamailio's own BYE, which deletes nothing in rtpengine), converted
 * after LOST_AFTER_SECONDS. Its pcap is gone; the file is removed once it is an hour old.
 */
export function sweepOrphanMetadata(folder: RecordingsFolder, now = Date.now()): number {
  const dir = path.join(folder.spool, "metadata");
  let removed = 0;
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const file = path.join(dir, name);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat || now - stat.mtimeMs < 3_600_000) continue;
    const pcap = fs.readFileSync(file, "utf8").split("\n", 1)[0].trim();
    if (pcap && fs.existsSync(path.join(folder.spool, "pcaps", path.basename(pcap)))) continue;
    fs.rmSync(file, { force: true });
    removed++;
  }
  return removed;
}

// ---------------------------------------------------------------------------------------------------------------
// Playback.

/** A call row's facts about its recording, as every page and API answer reads them. */
export interface RecordingFacts {
  recording: RecordingState | null;
  recordingError: string | null;
  recordingAttempts: number;
  answeredAt: Date | null;
  endedAt: Date | null;
}

/**
 * A call that ended unanswered (a failed call, a busy client) has no recording, at once: nothing was said. Its row
 * stays 'pending' only until the worker has removed what rtpengine spooled of its ringing (nothingRecorded), up to
 * LOST_AFTER_SECONDS later; nobody is shown that wait.
 */
const neverAnswered = sql`(${calls.endedAt} is not null and ${calls.answeredAt} is null)`;
const nothingToHear = (call: RecordingFacts) => call.recording === "pending" && call.endedAt !== null && call.answeredAt === null;

/** What became of a call's recording as people see it: null when it was not recorded (or nothing was said). */
export function shownRecording(call: RecordingFacts): RecordingState | null {
  return nothingToHear(call) ? null : call.recording;
}

/** What a row says of its recording, in Russian (the call log, the client's history). */
export function recordingNote(call: RecordingFacts): string | null {
  const error = call.recordingError;
  const attempts = call.recordingAttempts;
  switch (shownRecording(call)) {
    case null:
      return null;
    case "pending":
      if (!error) return "запись готовится";
      return attempts > 0 ? `запись не готова: ${error} (попытка ${attempts} из ${MAX_ATTEMPTS})` : `запись не готова: ${error}`;
    case "ready":
      return null;
    case "failed":
      return `запись не удалась: ${error ?? "неизвестная ошибка"}`;
    case "expired":
      return "запись удалена по сроку хранения";
    case "disk_full":
      return "разговор не записан: нет места в папке записей";
  }
}

/**
 * Who may hear a call (the one rule, for the players and for openRecording): an admin any call; a manager his own
 * call when its topic lets managers hear recordings, and never as a download. The refusal with its reason, or null.
 */
function hearingRefused(actor: Actor, call: { userId: number | null }, managersHear: boolean | null, download: boolean): AppError | null {
  if (actor.isAdmin) return null;
  if (call.userId !== actor.id) return forbidden("Это не ваш звонок: его запись слушает только администратор", "recording_forbidden");
  if (!managersHear) return forbidden("В этой тематике записи слушают только администраторы", "recording_forbidden");
  if (download) return forbidden("Скачать запись может только администратор", "recording_forbidden");
  return null;
}

/** Whether this person may play this call's recording now (the pages show a player only then). */
export function mayHear(actor: Actor, call: { userId: number | null; recording: RecordingState | null }, managersHear: boolean | null): boolean {
  return call.recording === "ready" && hearingRefused(actor, call, managersHear, false) === null;
}

export const recordingRequestSchema = bigIdSchema("Неверный идентификатор звонка");

/**
 * A call's recording for whoever may hear it (hearingRefused): the file's full path; a play or a download is
 * written down.
 */
export async function openRecording(
  db: Db,
  folder: RecordingsFolder,
  actor: Actor,
  rawCallId: unknown,
  /**
   * served: the bytes the request's Range asks of a file this size, as the HTTP adapter reads the header
   * (server/http/recording-answer.ts); they decide whether it starts a play (startsAPlay). playKey: a page's
   * player's own key (issue 39), which makes all of that player's requests one play, found by its reports.
   */
  purpose: { download: boolean; served: (size: number) => ServedBytes; playKey?: string | null },
): Promise<{ file: string; size: number; served: ServedBytes; name: string }> {
  const playKey = purpose.playKey ? parseInput(playKeySchema, purpose.playKey) : undefined;
  const id = parseInput(recordingRequestSchema, rawCallId);
  const [row] = await db
    .select({
      userId: calls.userId,
      recording: calls.recording,
      file: calls.recordingFile,
      startedAt: calls.startedAt,
      managersHear: filters.managersHearRecordings,
      recordingError: calls.recordingError,
      recordingAttempts: calls.recordingAttempts,
      answeredAt: calls.answeredAt,
      endedAt: calls.endedAt,
    })
    .from(calls)
    .leftJoin(filters, eq(filters.id, calls.filterId))
    .where(eq(calls.id, id));
  if (!row) throw notFound("Звонок не найден", "call_not_found");
  const refused = hearingRefused(actor, row, row.managersHear, purpose.download);
  if (refused) throw refused;
  if (row.recording !== "ready" || !row.file) {
    throw notFound(recordingNote(row) ?? "Этот звонок не записывался", "recording_not_found");
  }
  const file = path.join(folder.audio, row.file);
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined) throw notFound("Файл записи не найден в папке записей", "recording_not_found");
  const served = purpose.served(size);
  if (purpose.download) await db.insert(recordingPlays).values({ callId: id, userId: actor.id, download: true });
  else if (purpose.playKey !== undefined) {
    // A named player: its first request that serves anything is its play, the rest find it there.
    if (served !== "bad") {
      await db.insert(recordingPlays).values({ callId: id, userId: actor.id, download: false, playKey }).onConflictDoNothing();
    }
  } else if (await startsAPlay(db, id, actor.id, served)) await db.insert(recordingPlays).values({ callId: id, userId: actor.id, download: false });
  const stamp = row.startedAt.toISOString().slice(0, 19).replace(/[T:]/g, "-");
  return { file, size, served, name: `zvonok-${id}-${stamp}.ogg` };
}

/** A range past the start with no play of this person's in this long before it starts one (see startsAPlay). */
export const PLAY_GAP_SECONDS = 3600;

/**
 * Whether a GET of a recording serving these bytes is a play to write down (issue 39: only the header's text
 * `bytes=0-` counted, so `bytes=-100000` and `bytes=00-` fetched whole files unlogged). The Range header is read
 * against the file's size, as it is served (server/http/recording-answer.ts's byteRange):
 * - no Range, or a range that serves the file's first byte, is a play: `bytes=0-`, `bytes=00-10`, and a suffix
 *   range at least as long as the file (`bytes=-100000` of a smaller file is the whole file);
 * - a range past the start (a seek, a suffix shorter than the file) is the same play going on when this person
 *   played this call within PLAY_GAP_SECONDS, and a play of its own otherwise (`bytes=1-` is nearly the whole file);
 * - a range that cannot be served (416) plays nothing.
 */
export async function startsAPlay(db: Db, callId: number, userId: number, wanted: ServedBytes): Promise<boolean> {
  if (wanted === "bad") return false;
  if (wanted === "whole" || wanted.start === 0) return true;
  const [recent] = await db
    .select({ id: recordingPlays.id })
    .from(recordingPlays)
    .where(
      and(
        eq(recordingPlays.callId, callId),
        eq(recordingPlays.userId, userId),
        eq(recordingPlays.download, false),
        gt(recordingPlays.at, sql`now() - make_interval(secs => ${PLAY_GAP_SECONDS})`),
      ),
    )
    .limit(1);
  return !recent;
}
