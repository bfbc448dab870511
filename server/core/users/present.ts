import { sql } from "drizzle-orm";
import { users, type User } from "../../../db/schema";

/** How pages name a person (issue 41: one name for each): the display name, else the login. In a query. */
export const userNameSql = sql<string>`coalesce(nullif(${users.displayName}, ''), ${users.login})`;

/** The user as SPEC §3 describes it for a session (what the browser and the login answer carry). */
export function presentSessionUser(user: User) {
  return {
    id: user.id,
    login: user.login,
    displayName: user.displayName,
    isAdmin: user.isAdmin,
    isOnline: user.isOnline,
    gettingFilter: user.gettingFilter,
    sipLogin: user.sipLogin,
    sipPassword: user.sipPassword,
    balance: user.balanceCents / 100,
  };
}
export type SessionUser = ReturnType<typeof presentSessionUser>;

/** The fuller shape for manager management: the password only as its first 5 characters. */
export function presentManagedUser(user: User) {
  return {
    ...presentSessionUser(user),
    password: user.passwordHint,
    telegram: user.telegram,
    accessKey: user.accessKey,
    lastSeen: user.lastSeen ? user.lastSeen.toISOString() : null,
  };
}
export type ManagedUser = ReturnType<typeof presentManagedUser>;
