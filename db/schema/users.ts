import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp } from "drizzle-orm/pg-core";

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};
export { timestamps };

/** A person who logs in. `isAdmin` marks an administrator; everyone else is a manager. */
export const users = pgTable(
  "users",
  {
    id: serial("id").primaryKey(),
    login: text("login").notNull().unique(),
    passwordHash: text("password_hash").notNull(),
    /** Only the first 5 characters of the password stay readable (SPEC /managers). */
    passwordHint: text("password_hint").notNull().default(""),
    displayName: text("display_name").notNull().default(""),
    accessKey: text("access_key").notNull(),
    telegram: text("telegram").notNull().default(""),
    sipLogin: text("sip_login").notNull().default(""),
    sipPassword: text("sip_password").notNull().default(""),
    isAdmin: boolean("is_admin").notNull().default(false),
    /** Has a live session: true at login, false at logout and forced logout. Not presence. */
    isOnline: boolean("is_online").notNull().default(false),
    /** The chosen topic (filter id); 0 means none. */
    gettingFilter: integer("getting_filter").notNull().default(0),
    lastSeen: timestamp("last_seen", { withTimezone: true }),
    /** Earned and not yet paid, in cents. */
    balanceCents: integer("balance_cents").notNull().default(0),
    notify: boolean("notify").notNull().default(false),
    lastNotifyCents: integer("last_notify_cents").notNull().default(0),
    /** «Принимать входящие» (issue 42): the app may ring him for a client's call in; his own switch, on by default. */
    acceptsInbound: boolean("accepts_inbound").notNull().default(true),
    ...timestamps,
  },
  (t) => [index("users_last_seen_idx").on(t.lastSeen)],
);

/** Lucia v3 sessions. The id is the access token and the cookie value. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId)],
);

/**
 * Login attempts not known to have succeeded, per login and client address (login "" counts every login from
 * that address), in a window of fixed length; shared by every app instance. docs/decisions/021.
 */
export const loginThrottle = pgTable(
  "login_throttle",
  {
    login: text("login").notNull(),
    address: text("address").notNull().default(""),
    failures: integer("failures").notNull().default(0),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.login, t.address] })],
);

export type User = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;
