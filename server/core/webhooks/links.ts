import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { appSecrets } from "../../../db/schema";
import { AppError } from "../errors";
import { bigIdSchema, parseInput } from "../validation";

/**
 * Signed, expiring links to a call's recording (issue 44): what a `recording.ready` event carries, so its receiver
 * fetches the audio without an account. HMAC-SHA256 of the call id and the expiry with a key the app makes once
 * (app_secrets, shared by every instance).
 */
export const RECORDING_LINK_HOURS = 48;
const KEY_NAME = "recording_links";
const keys = new WeakMap<object, string>();

async function linkKey(db: Db): Promise<string> {
  const cached = keys.get(db);
  if (cached) return cached;
  await db
    .insert(appSecrets)
    .values({ name: KEY_NAME, value: crypto.randomBytes(32).toString("hex") })
    .onConflictDoNothing();
  const [row] = await db.select({ value: appSecrets.value }).from(appSecrets).where(eq(appSecrets.name, KEY_NAME));
  keys.set(db, row.value);
  return row.value;
}

const sign = (key: string, callId: number, expires: number) =>
  crypto.createHmac("sha256", key).update(`recording:${callId}:${expires}`).digest("hex");

/** The link's path and query (`/api/v1/recordings/<id>/shared?expires=…&signature=…`), valid RECORDING_LINK_HOURS. */
export async function signedRecordingPath(db: Db, callId: number, now = Date.now()): Promise<{ path: string; expiresAt: string }> {
  const expires = Math.floor(now / 1000) + RECORDING_LINK_HOURS * 3600;
  const signature = sign(await linkKey(db), callId, expires);
  return { path: `/api/v1/recordings/${callId}/shared?expires=${expires}&signature=${signature}`, expiresAt: new Date(expires * 1000).toISOString() };
}

export const sharedLinkSchema = z.object({
  id: bigIdSchema("Неверный идентификатор звонка"),
  expires: z.coerce.number({ error: "Неверная ссылка на запись" }).int({ error: "Неверная ссылка на запись" }),
  signature: z.string({ error: "Неверная ссылка на запись" }).regex(/^[0-9a-f]{64}$/, { error: "Неверная ссылка на запись" }),
});

/** The call a signed link names; 403 for a wrong signature, 410 for one whose time is over. */
export async function checkRecordingLink(db: Db, raw: unknown, now = Date.now()): Promise<number> {
  const { id, expires, signature } = parseInput(sharedLinkSchema, raw);
  const expected = Buffer.from(sign(await linkKey(db), id, expires), "hex");
  if (!crypto.timingSafeEqual(expected, Buffer.from(signature, "hex"))) throw new AppError(403, "bad_signature", "Неверная ссылка на запись");
  if (expires * 1000 < now) throw new AppError(410, "link_expired", "Срок действия ссылки на запись истёк");
  return id;
}
