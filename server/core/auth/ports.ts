import type { User } from "../../../db/schema";

/**
 * What core needs from the login machinery, declared here and implemented in server/auth (Lucia for sessions,
 * argon2id for passwords): core names no library, and the adapters hand the implementations in as parameters.
 */

/** Sessions; the session id is the access token and the cookie value (server/auth/sessions.ts). */
export interface SessionStore {
  create(userId: number): Promise<{ token: string; expiresAt: Date }>;
  /** The user behind a token, or null for an unknown or expired token. */
  validate(token: string): Promise<User | null>;
  invalidate(token: string): Promise<void>;
  /** Ends every session of the user but `keep` (the one an admin changing his own password acts through). */
  invalidateUser(userId: number, keep?: string): Promise<void>;
}

/** Password hashing (server/auth/password.ts). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password and for a hash it cannot read. */
  verify(hash: string, password: string): Promise<boolean>;
}
