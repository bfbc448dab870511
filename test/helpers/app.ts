import os from "node:os";
import path from "node:path";
import supertest from "supertest";
import { afterAll, beforeAll } from "vitest";
import { eq } from "drizzle-orm";
import type { DbHandle } from "../../db/client";
import { users, type User } from "../../db/schema";
import { seed } from "../../server/seed";
import { buildApp } from "../../server/app";
import { passwordHint } from "../../common/credentials";
import type { PasswordHasher } from "../../server/core/auth/ports";
import { testPasswords } from "./passwords";
import { loadConfig, type AppConfig } from "../../server/config";
import { createTestDb } from "./db";

export const ADMIN = { login: "admin", password: "Admin-password-1", accessKey: "ADMINKEY00000001" };

export interface TestApp {
  app: Awaited<ReturnType<typeof buildApp>>;
  handle: DbHandle;
  db: DbHandle["db"];
  config: AppConfig;
  request: ReturnType<typeof supertest>;
  /** Logs in through the API and returns the bearer token. */
  tokenFor(credentials: { login: string; password: string; accessKey: string }): Promise<string>;
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

/** The real app on a fresh database (seeded with ADMIN and the default statuses). */
export async function createTestApp(options: { web?: boolean; env?: Record<string, string>; passwords?: PasswordHasher } = {}): Promise<TestApp> {
  const handle = await createTestDb();
  // Recordings go to a folder of the test run's, never to ./data of the worktree.
  const config = loadConfig({
    LOG_LEVEL: "silent",
    RECORDINGS_DIR: path.join(os.tmpdir(), `leaddesk-test-recordings-${process.pid}`),
    ...options.env,
  });
  await seed(handle.db, { ...ADMIN, passwords: testPasswords });
  const app = await buildApp({ handle, config, web: options.web ?? false, passwords: options.passwords ?? testPasswords });
  await app.ready();
  const request = supertest(app.server);
  const tokenFor: TestApp["tokenFor"] = async (credentials) => {
    const res = await request.post("/api/v1/auth/login").send(credentials);
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.access_token;
  };
  return {
    app,
    handle,
    db: handle.db,
    config,
    request,
    tokenFor,
    adminToken: () => tokenFor(ADMIN),
    async close() {
      await app.close();
      await handle.close();
    },
  };
}

/**
 * A test file's app: made before its tests, closed after them (the pair every API test file wrote by hand). Call
 * it at the top level, before the file's own `beforeAll`, which then sees the app:
 * `const t = useTestApp({ web: true }); beforeAll(async () => { admin = await t.adminToken(); });`
 */
export function useTestApp(options: Parameters<typeof createTestApp>[0] = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await createTestApp(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  return standIn("useTestApp: the app", () => current);
}

/**
 * What a `use…` helper returns at the top of a file, before the object exists: every property read goes to
 * `current()`, which the helper's `beforeAll` sets (useTestApp, useCallPath in test/sip/call-page.ts).
 */
export function standIn<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_, key) {
      const value = current();
      if (!value) throw new Error(`${what} exists inside the file's tests and hooks only`);
      return Reflect.get(value, key);
    },
  });
}

let userCounter = 0;

/** A user straight in the database (a manager unless isAdmin); returns the row and its credentials. */
export async function createUser(
  db: DbHandle["db"],
  fields: Partial<typeof users.$inferInsert> & { password?: string } = {},
): Promise<{ user: User; login: string; password: string; accessKey: string }> {
  userCounter += 1;
  const login = fields.login ?? `manager${userCounter}`;
  const password = fields.password ?? `Password-${userCounter}x`;
  const accessKey = fields.accessKey ?? `KEY${String(userCounter).padStart(13, "0")}`;
  const { password: _omit, ...rest } = fields;
  const [user] = await db
    .insert(users)
    .values({
      displayName: `Менеджер ${userCounter}`,
      ...rest,
      login,
      accessKey,
      passwordHash: rest.passwordHash ?? (await testPasswords.hash(password)),
      passwordHint: passwordHint(password),
    })
    .returning();
  return { user, login, password, accessKey };
}

export async function reloadUser(db: DbHandle["db"], id: number) {
  const [user] = await db.select().from(users).where(eq(users.id, id));
  return user;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * GET a page as text. Asks for no compression: superagent can split a UTF-8 character across gzip chunks
 * and garble Cyrillic in `res.text`.
 */
export function getPage(t: TestApp, path: string, cookie?: string) {
  const req = t.request.get(path).set("Accept-Encoding", "identity");
  return cookie ? req.set("Cookie", cookie) : req;
}

/** A form body as the pages post it (application/x-www-form-urlencoded); a list is one field sent once per value (checkboxes of one name). */
export const formBody = (fields: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(fields).flatMap(([name, value]) => (Array.isArray(value) ? value.map((one) => [name, String(one)]) : [[name, String(value)]])),
  ).toString();

/** A form posted by the app's own page (same origin, the session cookie when given), as a browser sends it. */
export function postPageForm(t: TestApp, path: string, cookie: string | null, fields: Record<string, string | readonly string[]>) {
  const request = t.request
    .post(path)
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Accept-Encoding", "identity")
    .set("Content-Type", "application/x-www-form-urlencoded");
  if (cookie) request.set("Cookie", cookie);
  return request.send(formBody(fields));
}

/** Logs in through the page's form (web apps only) and returns the `session=…` cookie for the next requests. */
export async function pageSessionCookie(t: TestApp, credentials: { login: string; password: string; accessKey: string }): Promise<string> {
  const res = await t.request.post("/auth?index").set("Content-Type", "application/x-www-form-urlencoded").send(formBody(credentials));
  if (res.status !== 302) throw new Error(`page login failed: ${res.status} ${res.text.slice(0, 200)}`);
  const cookie = ([] as string[]).concat(res.headers["set-cookie"] ?? []).find((c) => c.startsWith("session="));
  if (!cookie) throw new Error("page login set no session cookie");
  return cookie.split(";")[0];
}

/** The flash cookie (name=value) a redirect set, which carries its toast to the next page; "" when it set none. */
export function flashCookie(res: { headers: Record<string, unknown> }): string {
  const set = ([] as string[]).concat((res.headers["set-cookie"] as string[] | string | undefined) ?? []);
  return set.find((c) => c.startsWith("flash="))?.split(";")[0] ?? "";
}
