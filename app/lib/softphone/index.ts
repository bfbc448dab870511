/**
 * The browser softphone (sip.js): the light entry point. sip.js itself lives in `softphone.ts`, which the
 * provider loads after hydration and only for a user with SIP credentials; this file never imports it, so the
 * realtime client can call `hangUpAllCalls` without pulling sip.js into its bundle.
 */
export { softphoneConfig, type SoftphoneConfig, type SoftphoneSettings } from "./config";
export { CALL_BUSY, CALL_ERROR, DIAL_ERROR, TEST_CALL_NUMBER, describePhone, dialableNumber, initialPhoneState, type PhoneState } from "./machine";

/** What the running softphone offers to code outside React (forced logout). */
export interface CallTerminator {
  hangUpAll(): Promise<void>;
}

let active: CallTerminator | null = null;

/** The running softphone registers itself here; it unregisters when it stops. */
export function setActiveSoftphone(phone: CallTerminator | null) {
  active = phone;
}

/**
 * Hangs up or rejects every call of this browser: an established call gets a BYE, an outgoing one still ringing a
 * CANCEL, an incoming one still ringing a 480 rejection. Resolves once the requests are sent (at most about a
 * second); without a softphone it resolves at once.
 */
export async function hangUpAllCalls(): Promise<void> {
  if (!active) return;
  try {
    await active.hangUpAll();
  } catch {
    // The session is going away anyway; a call that could not be ended cleanly ends with the socket.
  }
}

/** SPEC §9: the forced logout waits this long after the calls are ended. */
export const FORCED_LOGOUT_DELAY_MS = 200;

/**
 * SPEC §4 forced logout, for the realtime client's `forceLogout` event: end every call first, then log out
 * after 200 ms.
 */
export async function hangUpAllCallsThenLogout(logout: () => void): Promise<void> {
  await hangUpAllCalls();
  await new Promise((resolve) => setTimeout(resolve, FORCED_LOGOUT_DELAY_MS));
  logout();
}
