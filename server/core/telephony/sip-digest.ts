import crypto from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { users } from "../../../db/schema";
import { notFound } from "../errors";
import { parseInput } from "../validation";
import { requireTelephonySecret, type TelephonySecrets } from "./shared-secret";

/**
 * Kamailio's question for every REGISTER and INVITE of a manager's browser (decision 024): the digest HA1,
 * md5(login:realm:password), of this SIP login in this realm. The app's users table is the only place SIP
 * credentials live, on PGlite and Postgres alike; Kamailio never stores them. Answered only to whoever holds
 * the secret shared with Kamailio (SIP_AUTH_SECRET), so no manager can read another's.
 */
export const sipDigestSchema = z.object({
  login: z.string().trim().min(1, "Укажите SIP логин").max(100),
  realm: z.string().trim().min(1, "Укажите SIP домен").max(255),
});

export async function sipDigest(db: Db, secrets: TelephonySecrets, input: unknown): Promise<string> {
  requireTelephonySecret(secrets);
  const { login, realm } = parseInput(sipDigestSchema, input);
  const [user] = await db
    .select({ sipPassword: users.sipPassword })
    .from(users)
    .where(and(eq(users.sipLogin, login), ne(users.sipPassword, "")))
    .limit(1);
  if (!user) throw notFound("Нет менеджера с таким SIP логином", "sip_login_unknown");
  return crypto.createHash("md5").update(`${login}:${realm}:${user.sipPassword}`).digest("hex");
}
