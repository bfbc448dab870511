import type { Admission } from "./proxy-calls";
import type { InboundRoute } from "./inbound";

/**
 * The app's answer to Kamailio's call check, as route[ADMIT] in telephony/kamailio.cfg reads it with
 * `{param.value,KEY}` and `{line.at,N}` (decision 049): written here only, and test/core/kamailio-answer.test.ts
 * checks that the configuration reads these very keys.
 * - allowed: `id=N;record=1|0` (200): the call's id in the log, and whether rtpengine records it; then
 *   `;cid=DIGITS` when the manager's topic has a trunk number, the number the call shows (decision 083; route[TO_TRUNK]);
 * - refused: `id=N;sip=403` (403), then the SIP reason phrase on its own line (it has spaces, which Kamailio's
 *   parameter parsing refuses).
 */
export const ADMIT_KEYS = { callId: "id", record: "record", callerId: "cid", sipCode: "sip" } as const;

export function kamailioAnswer(admission: Admission): { status: 200 | 403; text: string } {
  const { callId, record, callerId, sipCode } = ADMIT_KEYS;
  if (admission.allowed) {
    const shown = admission.callerId ? `;${callerId}=${admission.callerId}` : "";
    return { status: 200, text: `${callId}=${admission.callId};${record}=${admission.record ? 1 : 0}${shown}` };
  }
  return { status: 403, text: `${callId}=${admission.callId ?? ""};${sipCode}=${admission.sipCode}\n${admission.phrase}` };
}

/**
 * The app's answer to route[FROM_TRUNK]'s question for a call in (issue 42), read the same way:
 * - ring: `id=N;ring=LOGIN;record=1|0;ring_s=S` (200): the call's id in the log, the SIP login to ring, whether
 *   rtpengine records it, and how many seconds it rings him before the next is asked for;
 * - nobody: `id=N;sip=486|480` (486 or 480, the same code), then the SIP reason phrase on its own line.
 */
export const INBOUND_KEYS = { callId: "id", ring: "ring", record: "record", ringSeconds: "ring_s", sipCode: "sip" } as const;

export function kamailioInboundAnswer(route: InboundRoute): { status: 200 | 480 | 486; text: string } {
  const { callId, ring, record, ringSeconds, sipCode } = INBOUND_KEYS;
  if (route.ring)
    return {
      status: 200,
      text: `${callId}=${route.callId};${ring}=${route.login};${record}=${route.record ? 1 : 0};${ringSeconds}=${route.ringSeconds}`,
    };
  return { status: route.sipCode, text: `${callId}=${route.callId};${sipCode}=${route.sipCode}\n${route.phrase}` };
}
