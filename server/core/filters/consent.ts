import { type SQL, sql } from "drizzle-orm";

/**
 * «Только с согласием» (issue 43): a topic may call only clients whose base gave their consent to calls
 * (contacts.consent_at, the «Согласие на звонки» column at import): advertising calls need it under 38-FZ art. 18.
 * True when topic `filterId` may call a client whose consent is `consentAt` (SQL timestamptz, null: none known).
 * One rule for the claim's tiers, the press's keep and the proxy's call check.
 */
export function consentAllows(consentAt: SQL, filterId: SQL): SQL {
  return sql`(${consentAt} is not null or not coalesce((select cf.requires_consent from filters cf where cf.id = ${filterId}), false))`;
}
