import crypto from "node:crypto";
import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { apiKeys, users, type User } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { forbidden, notFound } from "../errors";
import { idSchema, parseInput } from "../validation";
import { type ApiKeyScope, API_KEY_SCOPES, apiKeyInputSchema } from "../../../common/schemas/api-keys";

export { API_KEY_SCOPES, API_KEY_SCOPE_NAMES, apiKeyInputSchema, type ApiKeyScope } from "../../../common/schemas/api-keys";

/**
 * Integrations' API keys (issue 44). A key is `ldk_` and 32 random bytes; only its SHA-256 is stored, so it is
 * shown once, when made. It is a bearer token like a session's and acts as the admin who made it, within its
 * scopes: `read` any GET; `write` also the routes that take and press leads (a route's `scope: "write"`); `admin`
 * every route. A revoked key is refused at its next request (it is looked up on every one).
 */
export const API_KEY_PREFIX = "ldk_";
const hash = (key: string) => crypto.createHash("sha256").update(key).digest("hex");

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export async function listApiKeys(db: Db, actor: Actor): Promise<ApiKeyView[]> {
  requireAdmin(actor);
  const rows = await db
    .select({ key: apiKeys, login: users.login })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .orderBy(desc(apiKeys.id));
  return rows.map(({ key, login }) => ({
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes as ApiKeyScope[],
    createdBy: login ?? "",
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  }));
}

/** A new key: the answer is the only place its text ever appears. */
export async function createApiKey(db: Db, actor: Actor, rawInput: unknown): Promise<{ key: string; apiKey: ApiKeyView }> {
  requireAdmin(actor);
  const input = parseInput(apiKeyInputSchema, rawInput);
  const key = `${API_KEY_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
  const scopes = [...new Set(input.scopes)].sort((a, b) => Object.keys(API_KEY_SCOPES).indexOf(a) - Object.keys(API_KEY_SCOPES).indexOf(b));
  const [row] = await db
    .insert(apiKeys)
    .values({ name: input.name, keyHash: hash(key), prefix: key.slice(0, API_KEY_PREFIX.length + 6), scopes, userId: actor.id })
    .returning();
  return {
    key,
    apiKey: {
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      scopes: row.scopes as ApiKeyScope[],
      createdBy: actor.login,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    },
  };
}

export async function revokeApiKey(db: Db, actor: Actor, rawId: unknown): Promise<void> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(eq(apiKeys.id, id))
    .returning({ id: apiKeys.id });
  if (!row) throw notFound("Ключ не найден", "api_key_not_found");
}

/**
 * The user and scopes behind a key, or null (unknown, revoked, or its admin is no admin any more). Its last use is
 * written at most once a minute (a busy integration does not write on every request).
 */
export async function authenticateApiKey(db: Db, key: string): Promise<{ user: User; scopes: ApiKeyScope[] } | null> {
  if (!key.startsWith(API_KEY_PREFIX)) return null;
  const [row] = await db
    .select({ id: apiKeys.id, scopes: apiKeys.scopes, lastUsedAt: apiKeys.lastUsedAt, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hash(key)), isNull(apiKeys.revokedAt)));
  if (!row || !row.user.isAdmin) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: new Date() })
      .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), sql`${apiKeys.lastUsedAt} < now() - interval '1 minute'`)));
  }
  return { user: row.user, scopes: row.scopes as ApiKeyScope[] };
}

/** What a route needs of a key: `read` for a GET unless it says otherwise; else what it says, `admin` by default. */
export type RouteScope = ApiKeyScope;
export function routeScope(method: string, declared: RouteScope | undefined): RouteScope {
  return declared ?? (method === "GET" || method === "HEAD" ? "read" : "admin");
}

/** A key with these scopes may call a route that needs `needed` (admin covers all; write covers read). */
export function scopeAllows(scopes: readonly ApiKeyScope[], needed: RouteScope): boolean {
  if (scopes.includes("admin")) return true;
  if (needed === "read") return scopes.includes("read") || scopes.includes("write");
  if (needed === "write") return scopes.includes("write");
  return false;
}

export const scopeRefused = (needed: RouteScope) => forbidden(`У этого ключа API нет права «${API_KEY_SCOPES[needed]}»`, "api_key_scope");
