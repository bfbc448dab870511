import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { contacts } from "./bases";
import { filters } from "./filters";
import { users } from "./users";

export const CALL_DIRECTIONS = ["out", "in"] as const;
/** How a call ended: talked; the other side busy; nobody answered; refused or broken; hung up before an answer. */
export const CALL_OUTCOMES = ["answered", "busy", "no_answer", "failed", "cancelled"] as const;
/**
 * Where a call's recording is (issue 28, decision 054): none asked (null); pending: rtpengine records it, or it
 * waits for conversion (retried after a failure, the error on the row); ready: the audio file plays; failed: the
 * conversion gave up after its tries (the pcap is kept); expired: deleted by the topic's retention; disk_full: the
 * topic records, but the folder had no room, so the call went on unrecorded.
 */
export const RECORDING_STATES = ["pending", "ready", "failed", "expired", "disk_full"] as const;
export type RecordingState = (typeof RECORDING_STATES)[number];
export type CallDirection = (typeof CALL_DIRECTIONS)[number];
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/**
 * The call log: one row per call attempt from or to a manager's softphone. Opened when the call starts, closed
 * when it ends. A call through the telephony stack's trunk is written by the SIP proxy (`byProxy`, decision 049):
 * its answer and end are the proxy's, whatever the browser reports. Any other call is the browser's to report, and
 * one whose browser went away without saying so is closed by the server once `lastSeenAt` is old
 * (server/core/calls), so no row stays open for ever.
 */
export const calls = pgTable(
  "calls",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The client, when the call was dialled from the lead panel. */
    contactId: bigint("contact_id", { mode: "number" }).references(() => contacts.id, { onDelete: "set null" }),
    number: text("number").notNull(),
    direction: text("direction", { enum: CALL_DIRECTIONS }).notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    answeredAt: timestamp("answered_at", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** Whole seconds from the answer to the end; 0 for a call never answered. */
    talkSeconds: integer("talk_seconds").notNull().default(0),
    outcome: text("outcome", { enum: CALL_OUTCOMES }),
    /** The SIP final response of a refused call (486, 480, 603, ...), and its reason in Russian. */
    sipCode: integer("sip_code"),
    reason: text("reason"),
    /** The browser's last word on this call (start, answer, keep-alive); an open call long silent is closed. */
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    /** The SIP Call-ID: the browser's report and the proxy's events of one manager's call meet on it. */
    sipCallId: text("sip_call_id"),
    /** The SIP proxy vouched for this call (its policy check let it out, or it rang in): its events write the row. */
    byProxy: boolean("by_proxy").notNull().default(false),
    /** The manager's topic when the call started: its recording and retention rules apply to this call. */
    filterId: integer("filter_id").references(() => filters.id, { onDelete: "set null" }),
    recording: text("recording", { enum: RECORDING_STATES }),
    /**
     * The topic's recording retention (days), copied here when the topic is deleted (filter_id goes null then), so
     * its recordings still expire (issue 39); while the topic exists, its own current retention applies.
     */
    recordingRetentionDays: integer("recording_retention_days"),
    /** The audio file, relative to the recordings folder (RECORDINGS_DIR/audio). */
    recordingFile: text("recording_file"),
    /** Length of the audio in milliseconds. */
    recordingMs: integer("recording_ms"),
    /** Conversion tries so far, the last one's error, and when a worker's claim runs out (a killed one's is retried). */
    recordingAttempts: integer("recording_attempts").notNull().default(0),
    recordingError: text("recording_error"),
    recordingLeaseUntil: timestamp("recording_lease_until", { withTimezone: true }),
  },
  (t) => [
    index("calls_user_id_started_at_idx").on(t.userId, t.startedAt),
    index("calls_contact_id_started_at_idx").on(t.contactId, t.startedAt),
    index("calls_started_at_idx").on(t.startedAt),
    index("calls_open_idx")
      .on(t.lastSeenAt)
      .where(sql`ended_at is null`),
    // One row per manager and SIP call: a call between two managers is a row for each, with the same Call-ID.
    index("calls_recording_todo_idx")
      .on(t.id)
      .where(sql`recording = 'pending'`),
    // The retention sweeper's walk over the kept recordings, oldest first.
    index("calls_recording_ready_idx")
      .on(t.startedAt)
      .where(sql`recording = 'ready'`),
    uniqueIndex("calls_user_id_sip_call_id_idx")
      .on(t.userId, t.sipCallId)
      .where(sql`sip_call_id is not null`),
  ],
);

export type Call = typeof calls.$inferSelect;

export const LISTEN_KINDS = ["listen", "whisper"] as const;

/**
 * Who listened to or whispered into which call, and when (issue 28): an admin's «Слушать» or «Подсказать» on
 * /users, until «Стоп», the call's end or the admin's page going away. `relayTag` is rtpengine's tag of the admin's
 * side: the subscription's to-tag when listening, the published stream's from-tag when whispering; `hearTag` the
 * manager's subscription to a whisper.
 */
export const listenSessions = pgTable(
  "listen_sessions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    adminId: integer("admin_id").references(() => users.id, { onDelete: "set null" }),
    managerId: integer("manager_id").references(() => users.id, { onDelete: "set null" }),
    callId: bigint("call_id", { mode: "number" }).references(() => calls.id, { onDelete: "set null" }),
    kind: text("kind", { enum: LISTEN_KINDS }).notNull().default("listen"),
    relayTag: text("relay_tag"),
    hearTag: text("hear_tag"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /**
     * What the listening page really heard (issue 39, decision 071): the milliseconds its audio element played
     * while the relay's packets came (the admin's page for a listening, the manager's for a whisper), and when that
     * audio first and last played. Null: the page never reported (a session before this, a page killed at once).
     */
    heardMs: integer("heard_ms"),
    firstHeardAt: timestamp("first_heard_at", { withTimezone: true }),
    lastHeardAt: timestamp("last_heard_at", { withTimezone: true }),
  },
  (t) => [
    index("listen_sessions_started_at_idx").on(t.startedAt),
    // The access log's filters (issue 39): by who listened, by whose call.
    index("listen_sessions_admin_id_started_at_idx").on(t.adminId, t.startedAt),
    index("listen_sessions_manager_id_started_at_idx").on(t.managerId, t.startedAt),
    index("listen_sessions_call_id_idx").on(t.callId),
  ],
);

export type ListenSession = typeof listenSessions.$inferSelect;

/** Who played or downloaded which recording, and when (issue 28). */
export const recordingPlays = pgTable(
  "recording_plays",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    callId: bigint("call_id", { mode: "number" })
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    download: boolean("download").notNull().default(false),
    /**
     * The player's own key (issue 39): one page's <audio> asks for the file with ?play=<key>, so all its range
     * requests are one play, and its reports of how much it played find this row.
     */
    playKey: text("play_key"),
    /** How much of the recording the player played, in ms (the sum of its played ranges); null: never reported. */
    playedMs: integer("played_ms"),
    /** Fetched by the signed link of a `recording.ready` event (issue 44): no account, so no user; a download. */
    byLink: boolean("by_link").notNull().default(false),
  },
  (t) => [
    index("recording_plays_call_id_idx").on(t.callId),
    index("recording_plays_at_idx").on(t.at),
    index("recording_plays_user_id_at_idx").on(t.userId, t.at),
    uniqueIndex("recording_plays_user_id_play_key_idx")
      .on(t.userId, t.playKey)
      .where(sql`play_key is not null`),
  ],
);
