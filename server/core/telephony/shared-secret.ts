import crypto from "node:crypto";
import { AppError } from "../errors";

/**
 * The telephony stack's side door (decision 024): Kamailio asks the app with the secret both share
 * (SIP_AUTH_SECRET) instead of a session. One check for every question it asks.
 */
export interface TelephonySecrets {
  expected: string;
  given: string | undefined;
}

export const sipDigestDisabled = () => new AppError(404, "sip_auth_disabled", "Проверка SIP паролей выключена: задайте SIP_AUTH_SECRET");
export const sipDigestForbidden = () => new AppError(403, "sip_auth_secret", "Неверный секрет SIP_AUTH_SECRET");

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
