import { describe, expect, it } from "vitest";
import { AUTODIAL_STOPPED, autodialState, callVerdict, networkStreak, type AutodialInputs } from "../../app/lib/autodial";
import { countdownAnnouncement, secondsWord } from "../../app/lib/autodial-words";
import { initialPhoneState, type PhoneEvent, type PhoneState } from "../../app/lib/softphone/machine";
import { transition } from "../../app/lib/softphone/transition";

/** Progressive dialing's rule (decision 058): when the lead on screen is dialled by itself, and why not. */
const ready: AutodialInputs = {
  seconds: 5,
  leadBlock: null,
  onBreak: false,
  registered: true,
  lineActive: false,
  pressing: false,
  networkFailures: 0,
  paused: false,
  lead: "armed",
};

describe("autodialState", () => {
  it("counts down the topic's seconds for an armed lead when nothing stops it", () => {
    expect(autodialState(ready)).toEqual({ kind: "countdown", seconds: 5 });
  });

  it("is off where the topic has no autodial, whatever else holds", () => {
    expect(autodialState({ ...ready, seconds: null, onBreak: true })).toEqual({ kind: "off" });
  });

  it("says nothing once the lead was called, while a call is on, or while a press is on its way", () => {
    expect(autodialState({ ...ready, lead: "called" }).kind).toBe("idle");
    expect(autodialState({ ...ready, lineActive: true }).kind).toBe("idle");
    expect(autodialState({ ...ready, pressing: true }).kind).toBe("idle");
  });

  it("never starts on a break, unregistered, after two network failures, for a do-not-call number or outside hours, and says why", () => {
    const cases: Array<[Partial<AutodialInputs>, keyof typeof AUTODIAL_STOPPED]> = [
      [{ onBreak: true }, "break"],
      [{ registered: false }, "unregistered"],
      [{ networkFailures: 2 }, "lineDown"],
      [{ networkFailures: 3 }, "lineDown"],
      [{ leadBlock: "do_not_call" }, "doNotCall"],
      [{ leadBlock: "outside_hours" }, "outsideHours"],
      [{ paused: true }, "paused"],
      [{ lead: "skipped" }, "skipped"],
    ];
    for (const [change, reason] of cases) {
      expect(autodialState({ ...ready, ...change }), reason).toEqual({ kind: "stopped", reason, text: AUTODIAL_STOPPED[reason] });
    }
    // One failure is not yet the rule.
    expect(autodialState({ ...ready, networkFailures: 1 }).kind).toBe("countdown");
    expect(AUTODIAL_STOPPED.lineDown).toMatch(/^Похоже, линия не работает/);
  });

  it("names the break before the rest (the one thing the manager chose), and the line before the lead's own blocks", () => {
    expect(autodialState({ ...ready, onBreak: true, registered: false, paused: true })).toMatchObject({ reason: "break" });
    expect(autodialState({ ...ready, networkFailures: 2, leadBlock: "do_not_call" })).toMatchObject({ reason: "lineDown" });
  });
});

/** An outgoing call from the panel, through the machine, ending with `events`. */
function endedCall(...events: PhoneEvent[]): [PhoneState, PhoneState] {
  let state: PhoneState = {
    ...initialPhoneState,
    registration: "registered",
    call: "calling",
    direction: "out",
    lineActive: true,
    peer: "380501234567",
  };
  let prev = state;
  for (const event of events) {
    prev = state;
    state = transition(state, event).state;
  }
  return [prev, state];
}

describe("callVerdict and the network streak", () => {
  it("counts a carrier's 5xx, a carrier that never answers (504) and a lost connection as the network failing", () => {
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 503, reasonPhrase: "Service Unavailable" }))).toBe("network");
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 504, reasonPhrase: "Carrier Not Responding" }))).toBe("network");
    expect(callVerdict(...endedCall({ type: "failed" }))).toBe("network");
    expect(callVerdict(...endedCall({ type: "connectionLost" }))).toBe("network");
  });

  it("counts a call the client's side answered (talk, busy, no answer, declined) as through", () => {
    expect(callVerdict(...endedCall({ type: "established" }, { type: "terminated" }))).toBe("through");
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 486 }))).toBe("through");
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 480 }))).toBe("through");
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 603 }))).toBe("through");
  });

  it("learns nothing from the app's own refusals or a call that never left", () => {
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 403, reasonPhrase: "Do Not Call" }))).toBeNull();
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 403, reasonPhrase: "On Break" }))).toBeNull();
    expect(callVerdict(...endedCall({ type: "rejected", statusCode: 403, reasonPhrase: "Outside Calling Hours" }))).toBeNull();
    expect(callVerdict(...endedCall({ type: "dialFailed" }))).toBeNull();
    // No call ended: a state change during the call.
    expect(callVerdict(...endedCall({ type: "established" }))).toBeNull();
  });

  it("stops at two failures in a row; a call that goes through starts the count again", () => {
    let streak = 0;
    streak = networkStreak(streak, "network");
    expect(streak).toBe(1);
    streak = networkStreak(streak, "through");
    expect(streak).toBe(0);
    streak = networkStreak(networkStreak(streak, "network"), null);
    expect(streak).toBe(1);
    streak = networkStreak(streak, "network");
    expect(autodialState({ ...ready, networkFailures: streak })).toMatchObject({ reason: "lineDown" });
    expect(networkStreak(streak, "through")).toBe(0);
  });
});

describe("the countdown's one announcement", () => {
  it("names the client, the seconds in Russian and the keys", () => {
    expect(countdownAnnouncement(5, "Иван, +380 50 123 45 67")).toBe(
      "Автонабор: звонок клиенту Иван, +380 50 123 45 67 начнётся через 5 секунд. Пропустить — клавиша S, пауза — клавиша P.",
    );
    expect([1, 3, 5, 11, 21, 22, 12, 104].map(secondsWord)).toEqual([
      "секунду",
      "секунды",
      "секунд",
      "секунд",
      "секунду",
      "секунды",
      "секунд",
      "секунды",
    ]);
  });
});
