import { DrizzlePostgreSQLAdapter } from "@lucia-auth/adapter-drizzle";
import { and, eq, ne } from "drizzle-orm";
import { Lucia, TimeSpan } from "lucia";
import type { Db } from "../../db/client";
import { sessions, users, type User } from "../../db/schema";
import type { SessionStore } from "../core/auth/ports";

/**
 * Sessions, through Lucia v3: the SessionStore core declares (server/core/auth/ports.ts). Nothing else in the code
 * imports Lucia: this module is the seam where it can be replaced. The session id is the access token and the
 * cookie value.
 */

function makeLucia(db: Db, sessionDays: number) {
  const adapter = new DrizzlePostgreSQLAdapter(db, sessions, users);
  return new Lucia(adapter, {
    sessionExpiresIn: new TimeSpan(sessionDays, "d"),
    sessionCookie: { name: "session" },
    getUserAttributes: (attributes) => attributes,
  });
}

declare module "lucia" {
  interface Register {
    Lucia: ReturnType<typeof makeLucia>;
    UserId: number;
    DatabaseUserAttributes: Record<string, unknown>;
  }
}

export function createSessionStore(db: Db, sessionDays: number): SessionStore {
  const lucia = makeLucia(db, sessionDays);
  return {
    async create(userId) {
      const session = await lucia.createSession(userId, {});
      return { token: session.id, expiresAt: session.expiresAt };
    },
    async validate(token) {
      if (!token || token.length > 200) return null;
      const { user } = await lucia.validateSession(token);
      if (!user) return null;
      // The adapter selects the whole users row through Drizzle, so the attributes are the typed row.
      return user as unknown as User;
    },
    async invalidate(token) {
      await lucia.invalidateSession(token);
    },
    async invalidateUser(userId, keep) {
      // Lucia has no "all but one": the table is ours, so delete the others directly.
      if (keep) await db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.id, keep)));
      else await lucia.invalidateUserSessions(userId);
    },
  };
}
