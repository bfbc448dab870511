import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { softphoneConfig, webPhoneRedirectUrl } from "../../app/lib/softphone/config";
import {
  CALL_BUSY,
  CALL_ERROR,
  DIAL_ERROR,
  acceptsIncoming,
  callReport,
  cannotCallReason,
  describePhone,
  describeRegistration,
  formatDuration,
  dialableNumber,
  initialPhoneState,
  requestCall,
  type PhoneEvent,
  type PhoneState,
} from "../../app/lib/softphone/machine";
import { transition } from "../../app/lib/softphone/transition";

/** Runs events through the machine from a state; returns the final state and every toast shown. */
function run(from: PhoneState, ...events: PhoneEvent[]) {
  let state = from;
  const notices: string[] = [];
  for (const event of events) {
    const next = transition(state, event);
    state = next.state;
    if (next.notice) notices.push(next.notice.text);
  }
  return { state, notices };
}

const ready = run(initialPhoneState, { type: "registered" }).state;

function dial(state: PhoneState, number: string): PhoneState {
  const request = requestCall(state, number);
  if (!request.ok) throw new Error(`expected a call, got ${request.notice.text}`);
  return request.state;
}

describe("registration", () => {
  it("goes connecting → ready, and says so", () => {
    expect(describePhone(initialPhoneState)).toBe("Подключение телефона…");
    expect(ready.registration).toBe("registered");
    expect(describePhone(ready)).toBe("Телефон готов");
    const failed = run(ready, { type: "registrationFailed" }).state;
    expect(describePhone(failed)).toBe("Телефон не подключён");
  });

  it("forgets an old failure once registered again (after a reconnect)", () => {
    const failed = run(ready, { type: "registrationFailed" }).state;
    // A press meanwhile is refused by a toast that says why; the panel keeps saying the registration.
    const refused = requestCall(failed, "1002").state;
    expect(describePhone(refused)).toBe("Телефон не подключён");
    const back = run(refused, { type: "connecting" }, { type: "registered" }).state;
    expect(back.error).toBeNull();
    expect(describePhone(back)).toBe("Телефон готов");
  });

  it.each([
    [403, "Телефон не подключён: неверный SIP логин или пароль"],
    [401, "Телефон не подключён: неверный SIP логин или пароль"],
    [503, "Телефон не подключён: сервер телефонии недоступен"],
  ])("says why the server refused the registration (%i), and keeps saying it until the next attempt", (statusCode, text) => {
    const refused = run(initialPhoneState, { type: "registrationFailed", statusCode }).state;
    expect(describePhone(refused)).toBe(text);
    // sip.js then reports the registerer Unregistered, without a code: the reason stays.
    expect(describePhone(run(refused, { type: "registrationFailed" }).state)).toBe(text);
    expect(describePhone(run(refused, { type: "connecting" }).state)).toBe("Подключение телефона…");
  });

  it("refuses to dial before registration, saying why (not a vague Ошибка набора), and sends nothing (issue 31)", () => {
    const refused = run(initialPhoneState, { type: "registrationFailed", statusCode: 403 }).state;
    const dropped = run(initialPhoneState, { type: "registrationFailed" }).state;
    for (const [state, why] of [
      [initialPhoneState, "Позвонить пока нельзя: телефон подключается"],
      [refused, "Позвонить нельзя: телефон не подключён (неверный SIP логин или пароль)"],
      [dropped, "Позвонить нельзя: телефон не подключён"],
    ] as const) {
      expect(cannotCallReason(state)).toBe(why);
      const request = requestCall(state, "1002");
      expect(request.ok).toBe(false);
      if (!request.ok) expect(request.notice).toEqual({ kind: "error", text: why });
      expect(request.state).toBe(state);
    }
    expect(cannotCallReason(ready)).toBeNull();
  });
});

describe("line-active flag", () => {
  it("is set the moment Позвонить is pressed, before the server answers", () => {
    const request = requestCall(ready, "+380 (67) 123-45-67");
    expect(request.ok).toBe(true);
    if (!request.ok) return;
    expect(request.target).toBe("380671234567");
    expect(request.state).toMatchObject({ call: "calling", direction: "out", peer: "380671234567", lineActive: true });
    expect(describePhone(request.state)).toBe("Вызов 380671234567…");
  });

  it("turns a second press into the warning Идет вызов while calling, ringing or talking", () => {
    const calling = dial(ready, "1002");
    const talking = run(calling, { type: "established" }).state;
    const ringing = run(ready, { type: "incoming", peer: "1003" }).state;
    for (const busy of [calling, talking, ringing]) {
      const second = requestCall(busy, "1004");
      expect(second.ok).toBe(false);
      if (!second.ok) expect(second.notice).toEqual({ kind: "warning", text: CALL_BUSY });
      expect(second.state).toBe(busy);
    }
  });

  it("is cleared when the call ends, so the next call goes through", () => {
    const { state, notices } = run(dial(ready, "1002"), { type: "established" }, { type: "terminated" });
    expect(state).toMatchObject({ call: "ended", lineActive: false, error: null });
    expect(notices).toEqual([]);
    expect(describePhone(state)).toBe("Звонок завершён");
    expect(requestCall(state, "1002").ok).toBe(true);
    const cleared = run(state, { type: "cleared" }).state;
    expect(cleared).toMatchObject({ call: "idle", peer: null, direction: null });
    expect(describePhone(cleared)).toBe("Телефон готов");
  });

  it("refuses an incoming call on a busy line and rings on a free one", () => {
    expect(acceptsIncoming(ready)).toBe(true);
    expect(acceptsIncoming(dial(ready, "1002"))).toBe(false);
    const ringing = run(ready, { type: "incoming", peer: "1001" }).state;
    expect(ringing).toMatchObject({ call: "ringing", direction: "in", peer: "1001", lineActive: true });
    expect(describePhone(ringing)).toBe("Входящий звонок: 1001");
    expect(acceptsIncoming(ringing)).toBe(false);
    // A second incoming event while ringing does not replace the first caller.
    expect(run(ringing, { type: "incoming", peer: "1009" }).state.peer).toBe("1001");
  });

  it("shows the conversation once established, on either side", () => {
    const out = run(dial(ready, "1002"), { type: "established" }).state;
    expect(describePhone(out)).toBe("Разговор: 1002");
    const incoming = run(ready, { type: "incoming", peer: "1001" }, { type: "answering" }, { type: "established" }).state;
    expect(incoming).toMatchObject({ call: "inCall", lineActive: true });
    expect(describePhone(incoming)).toBe("Разговор: 1001");
  });

  it("holds for any order of events: the line is active exactly while a call is placed, ringing or up", () => {
    const event = fc.oneof(
      fc.constantFrom<PhoneEvent>(
        { type: "registered" },
        { type: "registrationFailed" },
        { type: "dialFailed" },
        { type: "failed" },
        { type: "established" },
        { type: "answering" },
        { type: "terminated" },
        { type: "cleared" },
      ),
      fc.integer({ min: 400, max: 699 }).map((statusCode): PhoneEvent => ({ type: "rejected", statusCode })),
      fc.constantFrom("1001", "1002").map((peer): PhoneEvent => ({ type: "incoming", peer })),
      fc.constant<PhoneEvent | "dial">("dial"),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        let state = initialPhoneState;
        for (const e of events) {
          state = e === "dial" ? requestCall(state, "1002").state : transition(state, e).state;
          const busy = state.call === "calling" || state.call === "ringing" || state.call === "inCall";
          expect(state.lineActive).toBe(busy);
        }
      }),
    );
  });
});

describe("error mapping", () => {
  it("maps a failure to send the INVITE (no microphone, socket down) to Ошибка набора", () => {
    const { state, notices } = run(dial(ready, "1002"), { type: "dialFailed" });
    expect(notices).toEqual([DIAL_ERROR]);
    expect(state).toMatchObject({ call: "ended", lineActive: false, error: DIAL_ERROR });
    expect(describePhone(state)).toBe(DIAL_ERROR);
  });

  it("maps a number that cannot be dialled to Ошибка набора", () => {
    for (const bad of ["", "   ", "abc", "12-ab-34", "+", "1".repeat(21)]) {
      const request = requestCall(ready, bad);
      expect(request.ok).toBe(false);
      if (!request.ok) expect(request.notice).toEqual({ kind: "error", text: DIAL_ERROR });
    }
  });

  it.each([
    [404, "Ошибка вызова: номер не найден"],
    [480, "Ошибка вызова: абонент недоступен"],
    [486, "Ошибка вызова: абонент занят"],
    [503, "Ошибка вызова: оператор связи недоступен"],
    [603, "Ошибка вызова: вызов отклонён"],
    [499, "Ошибка вызова"],
  ])("maps a %i answer to Ошибка вызова with the reason in Russian", (statusCode, message) => {
    const { state, notices } = run(dial(ready, "999"), { type: "rejected", statusCode });
    expect(notices).toEqual([message]);
    expect(state).toMatchObject({ call: "ended", lineActive: false, error: message });
    // The message stays in the panel after the call is cleared, until the next call.
    const cleared = run(state, { type: "cleared" }).state;
    expect(describePhone(cleared)).toBe(message);
    const next = requestCall(cleared, "1002");
    expect(next.ok && next.state.error).toBe(null);
  });

  it.each([
    [403, "Do Not Call", "Ошибка вызова: номер в списке «Не звонить»"],
    [403, "On Break", "Ошибка вызова: вы на перерыве"],
    [403, "Outside Calling Hours", "Ошибка вызова: у клиента сейчас нерабочее время"],
    [403, "Contact Limit", "Ошибка вызова: лимит звонков клиенту исчерпан"],
    [403, "No Consent", "Ошибка вызова: у клиента нет согласия на звонки"],
    [403, "Forbidden", "Ошибка вызова: вызов запрещён"],
    [503, "Call Policy Unavailable", "Ошибка вызова: сервер приложения недоступен"],
    [504, "Carrier Not Responding", "Ошибка вызова: оператор связи не отвечает"],
  ])("tells the telephony stack's own %i %s from the carrier's by its reason phrase", (statusCode, reasonPhrase, message) => {
    const { notices } = run(dial(ready, "999"), { type: "rejected", statusCode, reasonPhrase });
    expect(notices).toEqual([message]);
  });

  it("maps a call that dies before it is up (timeout, lost socket) to Ошибка вызова", () => {
    const { notices } = run(dial(ready, "1002"), { type: "failed" });
    expect(notices).toEqual([CALL_ERROR]);
  });

  it("ends a call whose connection to the PBX dropped with its own message, once", () => {
    const talking = run(dial(ready, "1002"), { type: "established" }).state;
    const { state, notices } = run(talking, { type: "connectionLost" }, { type: "terminated" }, { type: "registrationFailed" });
    expect(notices).toEqual(["Связь с сервером телефонии потеряна"]);
    expect(state).toMatchObject({ call: "ended", lineActive: false });
    expect(describePhone(state)).toBe("Связь с сервером телефонии потеряна");
    // Without a call it is only a registration matter: no toast.
    expect(run(ready, { type: "connectionLost" }).notices).toEqual([]);
  });

  it("treats 487 (our own CANCEL answered) as a plain hang-up, not an error", () => {
    const { state, notices } = run(dial(ready, "1002"), { type: "rejected", statusCode: 487 });
    expect(notices).toEqual([]);
    expect(state).toMatchObject({ call: "ended", error: null, lineActive: false });
  });

  it("shows one toast per call: the termination after a rejection adds nothing", () => {
    const { notices } = run(dial(ready, "999"), { type: "rejected", statusCode: 404 }, { type: "failed" }, { type: "terminated" });
    expect(notices).toEqual(["Ошибка вызова: номер не найден"]);
  });

  it("ignores stray call events on an idle line", () => {
    for (const event of [
      { type: "rejected", statusCode: 404 },
      { type: "failed" },
      { type: "dialFailed" },
      { type: "terminated" },
      { type: "established" },
    ] as PhoneEvent[]) {
      const next = transition(ready, event);
      expect(next.state).toBe(ready);
      expect(next.notice).toBeUndefined();
    }
  });
});

describe("what the call log is told", () => {
  /** Every report the phone's changes make, from `from` through the events. */
  function reports(from: PhoneState, ...events: PhoneEvent[]) {
    const said = [];
    let state = from;
    for (const event of events) {
      const next = transition(state, event).state;
      const report = callReport(state, next);
      if (report) said.push(report);
      state = next;
    }
    return said;
  }

  it("a call from the lead panel: start with its client, answer, end", () => {
    const request = requestCall(ready, "+380 (50) 123-45-67", 42, "abc@browser");
    expect(request.ok).toBe(true);
    expect(callReport(ready, request.state)).toEqual({
      type: "start",
      number: "380501234567",
      direction: "out",
      contactId: 42,
      sipCallId: "abc@browser",
    });
    expect(reports(request.state, { type: "established" }, { type: "terminated" })).toEqual([{ type: "answer" }, { type: "end", cause: "hangup" }]);
  });

  it.each([
    [[{ type: "rejected", statusCode: 486 }], { type: "end", sipCode: 486, cause: "remote" }],
    [[{ type: "rejected", statusCode: 403, reasonPhrase: "Do Not Call" }], { type: "end", sipCode: 403, phrase: "Do Not Call", cause: "remote" }],
    [[{ type: "rejected", statusCode: 487 }], { type: "end", cause: "hangup" }],
    [[{ type: "dialFailed" }], { type: "end", cause: "dial" }],
    [[{ type: "failed" }], { type: "end", cause: "lost" }],
    [[{ type: "terminated" }], { type: "end", cause: "hangup" }],
  ] as Array<[PhoneEvent[], object]>)("an unanswered call ended by %j", (events, end) => {
    expect(reports(dial(ready, "101"), ...events)).toEqual([end]);
  });

  it("an incoming call that rang out is reported as ended by the other side; nothing while the phone only registers", () => {
    expect(reports(ready, { type: "incoming", peer: "777", sipCallId: "in@carrier" }, { type: "terminated" })).toEqual([
      { type: "start", number: "777", direction: "in", contactId: null, sipCallId: "in@carrier" },
      { type: "end", cause: "remote" },
    ]);
    expect(reports(initialPhoneState, { type: "registered" }, { type: "connecting" }, { type: "registered" })).toEqual([]);
  });

  it("a refused press (line busy, not registered) starts no call", () => {
    const busy = dial(ready, "101");
    const again = requestCall(busy, "102");
    expect(callReport(busy, again.state)).toBeNull();
    const offline = requestCall(initialPhoneState, "102");
    expect(callReport(initialPhoneState, offline.state)).toBeNull();
  });
});

describe("dialableNumber", () => {
  it.each([
    ["+380 (67) 123-45-67", "380671234567"],
    ["067.123.45.67", "0671234567"],
    ["1002", "1002"],
    [" 210 ", "210"],
  ])("dials %s as %s", (raw, digits) => {
    expect(dialableNumber(raw)).toBe(digits);
  });

  it("keeps only the digits of any phone written with separators", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(..."0123456789 -().".split("")), { minLength: 1, maxLength: 30 }), (chars) => {
        const raw = chars.join("");
        const digits = raw.replace(/\D/g, "");
        const expected = digits.length >= 1 && digits.length <= 20 ? digits : null;
        expect(dialableNumber(raw)).toBe(expected);
      }),
    );
  });
});

describe("softphoneConfig", () => {
  const user = { sipLogin: "1001", sipPassword: "secret" };

  it("is null without SIP credentials or without a server", () => {
    expect(softphoneConfig({ sipWsUrl: "ws://127.0.0.1:5066", sipDomain: "" }, { sipLogin: "", sipPassword: "x" })).toBeNull();
    expect(softphoneConfig({ sipWsUrl: "ws://127.0.0.1:5066", sipDomain: "" }, { sipLogin: "1001", sipPassword: "" })).toBeNull();
    expect(softphoneConfig({ sipWsUrl: "", sipDomain: "" }, user)).toBeNull();
    expect(softphoneConfig({ sipWsUrl: "http://pbx.example.com/ws", sipDomain: "" }, user)).toBeNull();
    expect(softphoneConfig({ sipWsUrl: "not a url", sipDomain: "" }, user)).toBeNull();
  });

  it("builds the SPEC default wss://<domain>:443/ws from SIP_DOMAIN alone", () => {
    expect(softphoneConfig({ sipWsUrl: "", sipDomain: "pbx.example.com" }, user)).toEqual({
      wsUrl: "wss://pbx.example.com:443/ws",
      domain: "pbx.example.com",
      sipLogin: "1001",
      sipPassword: "secret",
    });
  });

  it("takes SIP_WS_URL as given and its host as the domain when SIP_DOMAIN is unset", () => {
    expect(softphoneConfig({ sipWsUrl: "ws://127.0.0.1:5066", sipDomain: "" }, user)).toMatchObject({
      wsUrl: "ws://127.0.0.1:5066",
      domain: "127.0.0.1",
    });
    expect(softphoneConfig({ sipWsUrl: "wss://edge.example.com/sip", sipDomain: "office.example.com" }, user)).toMatchObject({
      wsUrl: "wss://edge.example.com/sip",
      domain: "office.example.com",
    });
  });
});

describe("webPhoneRedirectUrl", () => {
  const now = new Date("2026-11-22T08:00:00Z");

  it("adds the timestamp and keeps the page's own query", () => {
    expect(webPhoneRedirectUrl("https://phone.example.com/app", now)).toBe(`https://phone.example.com/app?t=${now.getTime()}`);
    expect(webPhoneRedirectUrl("https://phone.example.com/app?lang=ru", now)).toBe(`https://phone.example.com/app?lang=ru&t=${now.getTime()}`);
  });

  it("is null when unset or not an http(s) address", () => {
    expect(webPhoneRedirectUrl("", now)).toBeNull();
    expect(webPhoneRedirectUrl("javascript:alert(1)", now)).toBeNull();
    expect(webPhoneRedirectUrl("phone.example.com", now)).toBeNull();
  });
});

describe("call controls (issue 15 part 2)", () => {
  it("times the call from the answer, mutes and holds only during it, and forgets both when it ends", () => {
    const talking = run(dial(ready, "+38 067 000"), { type: "established", at: 1_000 }).state;
    expect(talking.answeredAt).toBe(1_000);
    expect(talking.lastDialled).toBe("38067000");
    const held = run(talking, { type: "muted", on: true }, { type: "held", on: true }).state;
    expect(held).toMatchObject({ muted: true, held: true });
    expect(describePhone(held)).toBe("На удержании: 38067000");
    const over = run(held, { type: "terminated" }).state;
    expect(over).toMatchObject({ muted: false, held: false, answeredAt: null, lastDialled: "38067000" });
    // Outside a call the toggles do nothing.
    expect(run(ready, { type: "muted", on: true }, { type: "held", on: true }).state).toMatchObject({ muted: false, held: false });
  });

  it.each([
    [0, "0:00"],
    [7_400, "0:07"],
    [65_000, "1:05"],
    [3_723_000, "1:02:03"],
  ])("shows %i ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("always says whether the phone is registered", () => {
    expect(describeRegistration(ready)).toBe("Телефон подключён");
    expect(describeRegistration(initialPhoneState)).toBe("Подключение телефона…");
    expect(describeRegistration(run(ready, { type: "registrationFailed", statusCode: 403 }).state)).toBe(
      "Телефон не подключён: неверный SIP логин или пароль",
    );
  });
});
