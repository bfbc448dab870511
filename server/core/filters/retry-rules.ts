import { eq, inArray } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../../../db/client";
import { filterRetryRules, type RetryCountedBy, statuses } from "../../../db/schema";
import { badRequest, badRequestAt } from "../errors";
import { sortStatuses } from "../statuses/order";

/**
 * A topic's retry rules (issue 29, decision 057): per status the topic works again, «вернуть в работу через» so
 * many minutes, «не более» so many attempts in all, then a final status. The claim's retry tier and the status
 * press apply them (server/core/leads/retry.ts); here they are checked and stored.
 */

// The rules' input schemas and messages are in common/ (the topic form checks them in the browser too).
export { retryCountedBySchema, retryRuleSchema, retryRulesSchema } from "../../../common/schemas/filters";
import type { RetryRuleInput } from "../../../common/schemas/filters";
export type { RetryRuleInput };

/** A rule as GET /filters and the form show it. */
export interface PresentedRetryRule {
  status: { id: number; text: string };
  delayMinutes: number;
  maxAttempts: number;
  finalStatus: { id: number; text: string };
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The rules of some topics, by topic, in the statuses' one order (order.ts). */
export async function loadRetryRules(db: Db | Tx, filterIds: number[]): Promise<Map<number, PresentedRetryRule[]>> {
  const byFilter = new Map<number, PresentedRetryRule[]>(filterIds.map((id) => [id, []]));
  if (filterIds.length === 0) return byFilter;
  const finalStatus = alias(statuses, "final_status");
  const rows = await db
    .select({
      filterId: filterRetryRules.filterId,
      statusId: statuses.id,
      statusText: statuses.text,
      delayMinutes: filterRetryRules.delayMinutes,
      maxAttempts: filterRetryRules.maxAttempts,
      finalId: finalStatus.id,
      finalText: finalStatus.text,
      order: statuses.order,
      isTechnical: statuses.isTechnical,
      isReportStatus: statuses.isReportStatus,
    })
    .from(filterRetryRules)
    .innerJoin(statuses, eq(statuses.id, filterRetryRules.statusId))
    .innerJoin(finalStatus, eq(finalStatus.id, filterRetryRules.finalStatusId))
    .where(inArray(filterRetryRules.filterId, filterIds));
  for (const r of sortStatuses(rows.map((row) => ({ ...row, id: row.statusId })))) {
    byFilter.get(r.filterId)?.push({
      status: { id: r.statusId, text: r.statusText },
      delayMinutes: r.delayMinutes,
      maxAttempts: r.maxAttempts,
      finalStatus: { id: r.finalId, text: r.finalText },
    });
  }
  return byFilter;
}

/**
 * The rules a save leaves the topic with: the ones it sent, or (an edit that sent none: an older client) the ones
 * it has, less those whose status the topic no longer works again.
 */
export async function rulesToSave(tx: Tx, filterId: number | null, sent: RetryRuleInput[] | undefined, topicStatuses: number[]) {
  if (sent) return sent;
  if (filterId === null) return [];
  const kept = (await loadRetryRules(tx, [filterId])).get(filterId) ?? [];
  return kept
    .filter((r) => topicStatuses.includes(r.status.id))
    .map((r) => ({ status: r.status.id, delayMinutes: r.delayMinutes, maxAttempts: r.maxAttempts, finalStatus: r.finalStatus.id }));
}

/**
 * A rule must govern one of the topic's statuses (the ones it works again), once; its final status must exist, be
 * another status, and not one the topic works again (the contact would come straight back, and the limit would
 * mean nothing); a status that asks for a callback time has its callback instead.
 */
export async function checkRetryRules(tx: Tx, rules: RetryRuleInput[], topicStatuses: number[]) {
  if (rules.length === 0) return;
  const ids = [...new Set(rules.flatMap((r) => [r.status, r.finalStatus]))];
  const found = await tx
    .select({ id: statuses.id, text: statuses.text, asksCallback: statuses.asksCallback })
    .from(statuses)
    .where(inArray(statuses.id, ids));
  const byId = new Map(found.map((s) => [s.id, s]));
  const seen = new Set<number>();
  for (const rule of rules) {
    const status = byId.get(rule.status);
    const final = byId.get(rule.finalStatus);
    if (!status || !final) throw badRequest("Выбранный статус не найден", "status_not_found");
    if (seen.has(rule.status)) throw badRequest(`Для статуса «${status.text}» правило повтора задано дважды`, "retry_rule_twice");
    seen.add(rule.status);
    if (!topicStatuses.includes(rule.status)) {
      throw badRequestAt(
        `retryRules.${rule.status}.delay`,
        `Правило повтора для статуса «${status.text}»: отметьте этот статус в статусах тематики`,
        "retry_status_not_in_topic",
      );
    }
    if (status.asksCallback) {
      throw badRequestAt(
        `retryRules.${rule.status}.delay`,
        `Статус «${status.text}» спрашивает время перезвона: правило повтора к нему не задаётся`,
        "retry_status_asks_callback",
      );
    }
    if (rule.finalStatus === rule.status) {
      throw badRequestAt(
        `retryRules.${rule.status}.finalStatus`,
        `Итоговый статус правила для «${status.text}» должен быть другим статусом`,
        "retry_final_same",
      );
    }
    if (topicStatuses.includes(rule.finalStatus)) {
      throw badRequestAt(
        `retryRules.${rule.status}.finalStatus`,
        `Итоговый статус «${final.text}» тематика берёт в работу снова: выберите статус, которого нет в её статусах`,
        "retry_final_in_topic",
      );
    }
  }
}

/** Replaces the topic's rules with these (checked already). */
export async function writeRetryRules(tx: Tx, filterId: number, rules: RetryRuleInput[]) {
  await tx.delete(filterRetryRules).where(eq(filterRetryRules.filterId, filterId));
  if (rules.length === 0) return;
  await tx
    .insert(filterRetryRules)
    .values(
      rules.map((r) => ({ filterId, statusId: r.status, delayMinutes: r.delayMinutes, maxAttempts: r.maxAttempts, finalStatusId: r.finalStatus })),
    );
}

export type { RetryCountedBy };
