import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { filters } from "../../../db/schema";
import { INBOUND_NUMBER_WORDS } from "../../../common/schemas/filters";
import { phoneNotValid, validDoNotCallKey } from "../dnc/dnc";
import { AppError, badRequestAt } from "../errors";
import { ADVISORY_LOCK } from "../../../db/locks";

/**
 * A topic's trunk number (issue 42, decision 077): the number of the trunk an unknown caller dials to reach the
 * topic's managers (routeInbound's rule 3). Kept as E.164 digits, the key every number of the app is matched by
 * (contacts.phone_key, the do-not-call list), so "044 123 00 00", "+380441230000" and "380441230000" are one number;
 * shown with its plus. One number belongs to one active topic at most: otherwise which topic an unknown caller
 * reaches would be the lower id's, by chance.
 */

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The digits to store for a number as typed ("" stays ""), or a refusal at the field. */
export function inboundNumberKey(raw: string, region: string): string {
  const text = raw.trim();
  if (text === "") return "";
  const key = validDoNotCallKey(text, region);
  if (!key)
    throw badRequestAt("inboundNumber", `${INBOUND_NUMBER_WORDS.inMessages}: ${phoneNotValid(text, region).message}`, "inbound_number_invalid");
  return key;
}

/** How the API and the form show a stored number. */
export const presentInboundNumber = (key: string) => (key ? `+${key}` : "");

/**
 * Refuses (409, at the field) a number another active topic has; `filterId` is the topic being saved (null: a new
 * one). Runs in the save's transaction, after taking the trunk numbers' lock.
 */
export async function requireInboundNumberFree(tx: Tx, key: string, filterId: number | null) {
  if (key === "") return;
  await tx.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCK.trunkNumbers})`);
  const [other] = await tx
    .select({ name: filters.name })
    .from(filters)
    .where(and(eq(filters.inboundNumber, key), eq(filters.isActive, true), filterId === null ? undefined : ne(filters.id, filterId)))
    .limit(1);
  if (other) {
    throw Object.assign(
      new AppError(
        409,
        "inbound_number_taken",
        `Номер линии ${presentInboundNumber(key)} уже у активной тематики «${other.name}»: у одного номера может быть только одна тематика`,
      ),
      { field: "inboundNumber" },
    );
  }
}
