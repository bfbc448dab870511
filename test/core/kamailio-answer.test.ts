import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIT_KEYS, kamailioAnswer } from "../../server/core/telephony/kamailio-answer";

// The call check's answer is written by the app and read by Kamailio's route[ADMIT]: both sides against one format.
const cfg = fs.readFileSync(path.resolve(import.meta.dirname, "../../telephony/kamailio.cfg"), "utf8");
const admitRoute = cfg.slice(cfg.indexOf("route[ADMIT] {"), cfg.indexOf("\n}\n", cfg.indexOf("route[ADMIT] {")));

describe("the call check's answer to Kamailio", () => {
  it("writes an admission as id and record, and a refusal as id and sip with the reason on the next line", () => {
    expect(kamailioAnswer({ allowed: true, callId: 17, record: true })).toEqual({ status: 200, text: "id=17;record=1" });
    expect(kamailioAnswer({ allowed: true, callId: 18, record: false })).toEqual({ status: 200, text: "id=18;record=0" });
    expect(kamailioAnswer({ allowed: false, callId: 19, sipCode: 403, phrase: "Outside Calling Hours" })).toEqual({
      status: 403,
      text: "id=19;sip=403\nOutside Calling Hours",
    });
    expect(kamailioAnswer({ allowed: false, callId: null, sipCode: 403, phrase: "Not Signed In" }).text).toBe("id=;sip=403\nNot Signed In");
  });

  it("is read by telephony/kamailio.cfg with the same keys and lines", () => {
    expect(admitRoute).toContain(`$(var(answer){param.value,${ADMIT_KEYS.callId}})`);
    expect(admitRoute).toContain(`$(var(answer){param.value,${ADMIT_KEYS.record}}) == "1"`);
    expect(admitRoute).toContain(`$(var(answer){line.at,0}{param.value,${ADMIT_KEYS.sipCode}}) == "403"`);
    expect(admitRoute).toContain("$(var(answer){line.at,1})");
  });
});
