/**
 * The port core/users needs from the telephony side to give a manager a SIP account; the adapters that implement it
 * are in server/telephony/provider.ts (the provider's HTTP API, or extensions handed out here).
 */
import { AppError } from "../errors";

/** A SIP account on the telephony side: the extension is the manager's sipLogin. */
export interface SipAccount {
  extension: string;
  password: string;
}

/**
 * Where SIP accounts come from. `proxy`: the telephony provider's HTTP API (SPEC §7 Other calls, commands
 * createNew and deletePeer). `builtin`: no provider configured, so extensions are handed out here, under the
 * chosen prefix, from the numbers no manager uses yet (the embedded default works without any telephony).
 */
export interface TelephonyProvider {
  readonly kind: "proxy" | "builtin";
  createAccount(input: { prefix: number; name: string }): Promise<SipAccount>;
  deleteAccount(extension: string): Promise<void>;
}

/** SPEC §8 toasts for a failed provider call: the provider answered with an error, or could not be reached. */
export const proxyApiError = () => new AppError(502, "proxy_api_error", "Proxy API error");
export const fetchError = () => new AppError(502, "fetch_error", "Fetch error");
