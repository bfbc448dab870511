import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { applications, users } from "../../../db/schema";
import { type Actor, requireSelfOrAdmin } from "../actor";
import { AppError, notFound } from "../errors";
import { idSchema, parseInput } from "../validation";
import { NO_REPORT_TEXT } from "../../../common/client-card";

export const FORWARD_FAILED = "Ошибка при отправке";
export const FORWARD_OK = "Данные отправлены";
const FORWARD_TIMEOUT_MS = 5_000;

/** SPEC POST /status/proxy-application: date, user {id, login}, applicationText, phone. */
export const proxyApplicationSchema = z.object({
  date: z.union([z.string(), z.number()]).optional(),
  user: z.object({ id: idSchema, login: z.string({ error: "Укажите логин" }).max(100).optional() }, { error: "Укажите пользователя" }),
  applicationText: z
    .string({ error: NO_REPORT_TEXT })
    .trim()
    .min(1, { error: NO_REPORT_TEXT })
    .max(20_000, { error: "Слишком длинная заявка (не более 20000 символов)" }),
  phone: z.string().max(100).optional().default(""),
});

export interface ForwardResult {
  success: true;
  message: string;
  /** False when no forwarding endpoint is configured: the application is stored only. */
  forwarded: boolean;
}

/**
 * Sends a stored application to the configured endpoint (config.applicationForwardUrl) as JSON
 * { date, user {id, login}, applicationText, phone, withPassport }. With no endpoint it is stored only.
 * A failure is recorded on the application and answered 502 Ошибка при отправке.
 */
export async function forwardApplication(db: Db, forwardUrl: string, applicationId: number, fetchImpl: typeof fetch = fetch): Promise<ForwardResult> {
  const [row] = await db
    .select({
      id: applications.id,
      applicationText: applications.applicationText,
      phone: applications.phone,
      withPassport: applications.withPassport,
      createdAt: applications.createdAt,
      forwardedAt: applications.forwardedAt,
      userId: users.id,
      login: users.login,
    })
    .from(applications)
    .leftJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.id, applicationId));
  if (!row) throw notFound("Заявка не найдена", "application_not_found");
  if (!forwardUrl) return { success: true, message: FORWARD_OK, forwarded: false };
  if (row.forwardedAt) return { success: true, message: FORWARD_OK, forwarded: true };

  const payload = {
    date: row.createdAt.toISOString(),
    user: { id: row.userId, login: row.login },
    applicationText: row.applicationText,
    phone: row.phone,
    withPassport: row.withPassport,
  };
  let failure: string | null = null;
  try {
    const response = await fetchImpl(forwardUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    if (!response.ok) failure = `HTTP ${response.status}`;
    await response.body?.cancel().catch(() => {});
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  await db
    .update(applications)
    .set(
      failure
        ? { forwardError: failure.slice(0, 500), updatedAt: new Date() }
        : { forwardedAt: new Date(), forwardError: null, updatedAt: new Date() },
    )
    .where(eq(applications.id, row.id));
  if (failure) throw new AppError(502, "forward_failed", FORWARD_FAILED);
  return { success: true, message: FORWARD_OK, forwarded: true };
}

/**
 * The API's proxy-application call: forwards the application that the report status press stored for this
 * user, text and phone (the latest one not yet forwarded). The press stores it and credits the manager; this
 * call never creates money.
 */
export async function proxyApplication(db: Db, actor: Actor, forwardUrl: string, rawInput: unknown) {
  const input = parseInput(proxyApplicationSchema, rawInput);
  requireSelfOrAdmin(actor, input.user.id);
  const [application] = await db
    .select({ id: applications.id })
    .from(applications)
    .where(
      and(
        eq(applications.userId, input.user.id),
        eq(applications.applicationText, input.applicationText),
        eq(applications.phone, input.phone),
        isNull(applications.forwardedAt),
      ),
    )
    .orderBy(desc(applications.id))
    .limit(1);
  if (!application) {
    throw notFound("Заявка не найдена: сначала отметьте отчётный статус у клиента", "application_not_found");
  }
  return forwardApplication(db, forwardUrl, application.id);
}
