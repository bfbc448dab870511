import { argon2At } from "../../server/auth/password";

/**
 * The suite's password hasher: argon2id, as the app's, at costs some 40 times cheaper (~4 ms of CPU a hash, not
 * ~180; thousands of users are created and logged in a run). The app's own costs are the library's defaults, which
 * test/core/passwords.test.ts holds; a test that times a login (test/api/auth.test.ts) uses those.
 */
export const testPasswords = argon2At({ memoryCost: 4096, timeCost: 2, parallelism: 1 });
