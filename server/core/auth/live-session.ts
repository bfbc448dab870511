import { type SQL, sql } from "drizzle-orm";

/**
 * Whether a session row is live, for the statements that check a session themselves (the press, decision 069; the
 * proxy's call check; the realtime socket's presence): its row is there (logout, «Завершить сессию» and a new
 * password delete it) and it has not expired. Lucia's rule (server/auth/sessions.ts) for every other request.
 * `session` names the sessions row (its table or an alias).
 */
export const sessionIsLive = (session: SQL = sql`sessions`): SQL => sql`${session}.expires_at > now()`;
