import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIT_KEYS, INBOUND_KEYS, kamailioAnswer, kamailioInboundAnswer } from "../../server/core/telephony/kamailio-answer";

// The call check's answer is written by the app and read by Kamailio's route[ADMIT]: both sides against one format.
const cfg = fs.readFileSync(path.resolve(import.meta.dirname, "../../telephony/kamailio.cfg"), "utf8");
/** A route's body in the configuration, from its head to its closing brace. */
const routeOf = (name: string) => {
  const start = cfg.indexOf(`route[${name}] {`);
  return start < 0 ? "" : cfg.slice(start, cfg.indexOf("\n}\n", start));
};
const admitRoute = routeOf("ADMIT");

describe("the call check's answer to Kamailio", () => {
  it("writes an admission as id and record, and a refusal as id and sip with the reason on the next line", () => {
    expect(kamailioAnswer({ allowed: true, callId: 17, record: true, callerId: null })).toEqual({ status: 200, text: "id=17;record=1" });
    expect(kamailioAnswer({ allowed: true, callId: 18, record: false, callerId: null })).toEqual({ status: 200, text: "id=18;record=0" });
    expect(kamailioAnswer({ allowed: false, callId: 19, sipCode: 403, phrase: "Outside Calling Hours" })).toEqual({
      status: 403,
      text: "id=19;sip=403\nOutside Calling Hours",
    });
    expect(kamailioAnswer({ allowed: false, callId: null, sipCode: 403, phrase: "Not Signed In" }).text).toBe("id=;sip=403\nNot Signed In");
  });

  it("adds the number the call shows as cid when the manager's topic has a trunk number (decision 083)", () => {
    expect(kamailioAnswer({ allowed: true, callId: 20, record: false, callerId: "380441230077" })).toEqual({
      status: 200,
      text: "id=20;record=0;cid=380441230077",
    });
  });

  it("is read by telephony/kamailio.cfg with the same keys and lines", () => {
    expect(admitRoute).toContain(`$(var(answer){param.value,${ADMIT_KEYS.callId}})`);
    expect(admitRoute).toContain(`$(var(answer){param.value,${ADMIT_KEYS.record}}) == "1"`);
    expect(admitRoute).toContain(`$(var(answer){line.at,0}{param.value,${ADMIT_KEYS.sipCode}}) == "403"`);
    expect(admitRoute).toContain("$(var(answer){line.at,1})");
    // The topic's number reaches the From of route[TO_TRUNK] through $var(cid) (route[SHOWN_NUMBER]).
    expect(admitRoute).toContain(`$var(cid) = $(var(answer){param.value,${ADMIT_KEYS.callerId}});`);
    expect(routeOf("SHOWN_NUMBER")).toContain("$var(caller_id) = $var(cid);");
    expect(routeOf("TO_TRUNK")).toContain("route(SHOWN_NUMBER);");
  });
});

const pickRoute = cfg.slice(cfg.indexOf("route[PICK_MANAGER] {"), cfg.indexOf("\n}\n", cfg.indexOf("route[PICK_MANAGER] {")));

describe("the inbound routing's answer to Kamailio (issue 42)", () => {
  it("writes the manager to ring with the call's id, recording and ring time, and nobody as 486/480 with the reason", () => {
    expect(kamailioInboundAnswer({ ring: true, callId: 5, login: "9001", userId: 1, rule: 1, record: true, ringSeconds: 15 })).toEqual({
      status: 200,
      text: "id=5;ring=9001;record=1;ring_s=15",
    });
    expect(kamailioInboundAnswer({ ring: false, callId: 6, sipCode: 486, phrase: "Managers Busy" })).toEqual({
      status: 486,
      text: "id=6;sip=486\nManagers Busy",
    });
  });

  it("is read by route[PICK_MANAGER] with the same keys, the refusal's code and reason line", () => {
    for (const key of [INBOUND_KEYS.callId, INBOUND_KEYS.ring, INBOUND_KEYS.record])
      expect(pickRoute).toContain(`$(var(answer){param.value,${key}})`);
    expect(pickRoute).toContain(`$(var(answer){param.value,${INBOUND_KEYS.ringSeconds}}{s.int})`);
    expect(pickRoute).toContain(`$(var(answer){line.at,0}{param.value,${INBOUND_KEYS.sipCode}}) == $var(code)`);
    expect(pickRoute).toContain("$(var(answer){line.at,1})");
    expect(pickRoute).toContain("http_client_query(INBOUND_URL,");
  });
});
