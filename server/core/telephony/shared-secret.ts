import crypto from "node:crypto";
import type { Db } from "../../../db/client";
import { countFailure, failuresSoFar } from "../auth/throttle";
import { AppError, tooManyRequests } from "../errors";

/**
 * The telephony stack's side door (decision 024): Kamailio asks the app with the secret both share
 * (SIP_AUTH_SECRET) instead of a session. One check for every question it asks.
 */
export interface TelephonySecrets {
  expected: string;
  given: string | undefined;
}

/** Wrong secrets from one address per window (throttle.ts): after these that address is answered 429, right secret or not. */
export const SECRET_FAILURE_LIMIT = 10;
/** Its key in login_throttle: a login is trimmed before it is counted (loginSchema), so none ever counts here. */
const THROTTLE_KEY = " SIP_AUTH_SECRET";

export const sipDigestDisabled = () => new AppError(404, "sip_auth_disabled", "Проверка SIP паролей выключена: задайте SIP_AUTH_SECRET");
export const sipDigestForbidden = () => new AppError(403, "sip_auth_secret", "Неверный секрет SIP_AUTH_SECRET");
const secretThrottled = (minutes: number) =>
  tooManyRequests(`Слишком много неверных секретов SIP_AUTH_SECRET с этого адреса. Попробуйте через ${minutes} мин.`, "sip_auth_throttled");

function sameSecret(given: string, expected: string): boolean {
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/** Refuses (404 while no secret is set, 403 for a wrong one) unless the caller holds the shared secret. */
export function requireTelephonySecret(secrets: TelephonySecrets): void {
  if (!secrets.expected) throw sipDigestDisabled();
  if (!secrets.given || !sameSecret(secrets.given, secrets.expected)) throw sipDigestForbidden();
}

/**
 * requireTelephonySecret with wrong secrets counted per client address (the adapter's clientAddress, as login
 * counts): past SECRET_FAILURE_LIMIT in a window the address is answered 429 until the window ends, even with the
 * right secret, so nobody guesses it; Kamailio at another address goes on. A right secret reads the count only.
 */
export async function checkTelephonySecret(db: Db, secrets: TelephonySecrets, address: string): Promise<void> {
  if (!secrets.expected) throw sipDigestDisabled();
  if (secrets.given && sameSecret(secrets.given, secrets.expected)) {
    const so = await failuresSoFar(db, THROTTLE_KEY, address);
    if (so && so.failures >= SECRET_FAILURE_LIMIT) throw secretThrottled(so.minutesLeft);
    return;
  }
  const [counted] = await countFailure(db, [THROTTLE_KEY], address);
  if (counted.failures > SECRET_FAILURE_LIMIT) throw secretThrottled(counted.minutesLeft);
  throw sipDigestForbidden();
}
