import type { Admission } from "./proxy-calls";

/**
 * The app's answer to Kamailio's call check, as route[ADMIT] in telephony/kamailio.cfg reads it with
 * `{param.value,KEY}` and `{line.at,N}` (decision 049): written here only, and test/core/kamailio-answer.test.ts
 * checks that the configuration reads these very keys.
 * - allowed: `id=N;record=1|0` (200): the call's id in the log, and whether rtpengine records it;
 * - refused: `id=N;sip=403` (403), then the SIP reason phrase on its own line (it has spaces, which Kamailio's
 *   parameter parsing refuses).
 */
export const ADMIT_KEYS = { callId: "id", record: "record", sipCode: "sip" } as const;

export function kamailioAnswer(admission: Admission): { status: 200 | 403; text: string } {
  const { callId, record, sipCode } = ADMIT_KEYS;
  if (admission.allowed) return { status: 200, text: `${callId}=${admission.callId};${record}=${admission.record ? 1 : 0}` };
  return { status: 403, text: `${callId}=${admission.callId ?? ""};${sipCode}=${admission.sipCode}\n${admission.phrase}` };
}
