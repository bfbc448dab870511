import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, listenSessions, users } from "../../db/schema";
import { ADMIN, createTestApp, createUser, pageSessionCookie, postPageForm, type TestApp } from "../helpers/app";
import { freePort } from "../helpers/ports";

/**
 * POST /listen (issue 28) without a media relay that answers: who may ask, and the Russian answers when listening
 * cannot start. The audio itself is proven through Kamailio and rtpengine in test/e2e/telephony-carrier.test.ts.
 */
let t: TestApp;
let adminCookie: string;
let managerCookie: string;
let manager: Awaited<ReturnType<typeof createUser>>;

const listen = (cookie: string | null, fields: Record<string, string>) => postPageForm(t, "/listen", cookie, fields);

beforeAll(async () => {
  // An rtpengine address where nothing listens: the relay never answers.
  t = await createTestApp({ web: true, env: { RTPENGINE_NG: `127.0.0.1:${await freePort()}` } });
  manager = await createUser(t.db, { login: "listened-manager" });
  adminCookie = await pageSessionCookie(t, ADMIN);
  managerCookie = await pageSessionCookie(t, manager);
});
afterAll(async () => {
  await t?.close();
});

describe("live listening's requests", () => {
  it("are for signed-in admins only", async () => {
    expect((await listen(null, { intent: "start", managerId: String(manager.user.id) })).status).toBe(401);
    const asManager = await listen(managerCookie, { intent: "start", managerId: String(manager.user.id) });
    expect(asManager.status).toBe(403);
    expect(asManager.body.message).toBe("Недостаточно прав для этого действия");
  });

  it("let only an admin whisper, and only the manager whispered to hear it", async () => {
    const offer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";
    const asManager = await listen(managerCookie, { intent: "whisper", managerId: String(manager.user.id), sdp: offer });
    expect(asManager.status).toBe(403);
    // Another user's whisper session, or one that does not exist, is not his to hear.
    const stranger = await listen(managerCookie, { intent: "hear", sessionId: "4242" });
    expect(stranger.status).toBe(400);
    expect(stranger.body.message).toBe("Подсказка уже завершена");
    expect((await listen(adminCookie, { intent: "whisper", managerId: String(manager.user.id) })).body.message).toBe("Нет предложения браузера");
  });

  it("say plainly when there is nobody or no call to listen to", async () => {
    expect((await listen(adminCookie, { intent: "start", managerId: "999999" })).body).toMatchObject({ message: "Менеджер не найден" });
    const idle = await listen(adminCookie, { intent: "start", managerId: String(manager.user.id) });
    expect(idle.status).toBe(409);
    expect(idle.body.message).toBe("Менеджер сейчас не разговаривает");
    // A call the browser reported but the proxy never relayed has no media in rtpengine to copy.
    await t.db
      .insert(calls)
      .values({ userId: manager.user.id, number: "380671112233", direction: "out", answeredAt: new Date(), sipCallId: "browser-only@x" });
    expect((await listen(adminCookie, { intent: "start", managerId: String(manager.user.id) })).status).toBe(409);
    expect((await listen(adminCookie, { intent: "start", managerId: "abc" })).body.message).toBe("Неверный идентификатор");
    expect((await listen(adminCookie, { intent: "whisper" })).status).toBe(400);
  });

  it("answer 503 with the reason when rtpengine does not answer, and open no session", async () => {
    await t.db
      .insert(calls)
      .values({ userId: manager.user.id, number: "380671112244", direction: "out", answeredAt: new Date(), sipCallId: "relayed@x", byProxy: true });
    const answer = await listen(adminCookie, { intent: "start", managerId: String(manager.user.id) });
    expect(answer.status).toBe(503);
    expect(answer.body.message).toBe("Прослушивание недоступно: rtpengine не отвечает");
    expect(await t.db.select().from(listenSessions).where(eq(listenSessions.managerId, manager.user.id))).toEqual([]);
    const stale = await listen(adminCookie, { intent: "stop", sessionId: "12345" });
    expect(stale.status).toBe(400);
    expect(stale.body.message).toBe("Прослушивание уже завершено");
  });

  it("says why when «Стоп» finds the call over (the row left the call before the call's end reached the page)", async () => {
    const [admin] = await t.db.select({ id: users.id }).from(users).where(eq(users.login, ADMIN.login));
    const session = async (endedAt: Date | null) => {
      const [call] = await t.db
        .insert(calls)
        .values({
          userId: manager.user.id,
          number: "380671112277",
          direction: "out",
          answeredAt: new Date(),
          endedAt,
          sipCallId: `s${Math.random()}@x`,
          byProxy: true,
        })
        .returning({ id: calls.id });
      const [row] = await t.db.insert(listenSessions).values({ adminId: admin.id, managerId: manager.user.id, callId: call.id }).returning();
      return String(row.id);
    };
    // The call is over: the open session is closed, and the answer says so for the page's toast.
    const over = await session(new Date());
    const stopped = await listen(adminCookie, { intent: "stop", sessionId: over });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual({ callEnded: "Звонок завершён: прослушивание остановлено" });
    const [closed] = await t.db
      .select()
      .from(listenSessions)
      .where(eq(listenSessions.id, Number(over)));
    expect(closed.endedAt).toBeInstanceOf(Date);
    // Asked again (the call's end closed it first): the same words, no error.
    expect((await listen(adminCookie, { intent: "stop", sessionId: over })).body).toEqual({
      callEnded: "Звонок завершён: прослушивание остановлено",
    });
    // «Стоп» on a call that goes on: nothing to say.
    const live = await listen(adminCookie, { intent: "stop", sessionId: await session(null) });
    expect(live.status).toBe(204);
    // Left as the other tests expect: no session, no call in progress.
    await t.db.delete(listenSessions).where(eq(listenSessions.managerId, manager.user.id));
    await t.db.update(calls).set({ endedAt: new Date() }).where(eq(calls.userId, manager.user.id));
  });

  it("says a call that still rings is not answered yet", async () => {
    const ringing = await createUser(t.db, { login: "ringing-manager" });
    await t.db.insert(calls).values({ userId: ringing.user.id, number: "380671112266", direction: "out", sipCallId: "ringing@x", byProxy: true });
    const answer = await listen(adminCookie, { intent: "start", managerId: String(ringing.user.id) });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: "call_not_answered", message: "Звонок ещё не принят" });
  });

  it("is not set up without RTPENGINE_NG, and says which setting is missing", async () => {
    const bare = await createTestApp({ web: true });
    try {
      const m = await createUser(bare.db, { login: "unlistened-manager" });
      await bare.db
        .insert(calls)
        .values({ userId: m.user.id, number: "380671112255", direction: "out", answeredAt: new Date(), sipCallId: "c@x", byProxy: true });
      const answer = await postPageForm(bare, "/listen", await pageSessionCookie(bare, ADMIN), { intent: "start", managerId: String(m.user.id) });
      expect(answer.status).toBe(503);
      expect(answer.body.message).toBe("Прослушивание недоступно: не задан адрес управления rtpengine (RTPENGINE_NG)");
    } finally {
      await bare.close();
    }
  });
});

/**
 * What a browser hands rtpengine (issue 39): a plain RTP/AVP answer with a chosen address made rtpengine send both
 * parties' audio unencrypted there. Only WebRTC's own shape passes; each refusal says what is wrong, in Russian.
 */
describe("a browser's SDP", () => {
  const ufrag = "a=ice-ufrag:Xk9q";
  const pwd = "a=ice-pwd:0123456789abcdefghijklmn";
  const fingerprint = "a=fingerprint:sha-256 " + Array.from({ length: 32 }, (_, i) => (i + 16).toString(16).toUpperCase()).join(":");
  const candidate = "a=candidate:1 1 udp 2122260223 127.0.0.1 50123 typ host generation 0";
  /** Chromium's answer to rtpengine's offer of two parties, as the listening page sends it (its shape). */
  const chromiumAnswer = (change: (lines: string[]) => string[] = (l) => l) =>
    change([
      "v=0",
      "o=- 4611731400430051336 2 IN IP4 127.0.0.1",
      "s=-",
      "t=0 0",
      "a=group:BUNDLE 0 1",
      ...[0, 1].flatMap((mid) => [
        "m=audio 50123 UDP/TLS/RTP/SAVPF 111",
        "c=IN IP4 127.0.0.1",
        candidate,
        ufrag,
        pwd,
        fingerprint,
        "a=setup:active",
        `a=mid:${mid}`,
        "a=recvonly",
        "a=rtcp-mux",
        "a=rtpmap:111 opus/48000/2",
      ]),
    ]).join("\r\n") + "\r\n";
  const answer = (sdp: string) => listen(adminCookie, { intent: "answer", sessionId: "777", sdp });

  it("passes WebRTC's own answer on (here to a session that is over)", async () => {
    const passed = await answer(chromiumAnswer());
    expect(passed.status).toBe(400);
    expect(passed.body.message).toBe("Прослушивание уже завершено");
    const noAddress = await answer(chromiumAnswer((l) => l.map((line) => (line.startsWith("c=") ? "c=IN IP4 0.0.0.0" : line))));
    expect(noAddress.body.message).toBe("Прослушивание уже завершено");
  });

  it("refuses plain RTP to an address of the sender's choosing, and every part of DTLS-SRTP or ICE missing", async () => {
    const plain = [
      "v=0",
      "o=- 1 1 IN IP4 203.0.113.5",
      "s=-",
      "c=IN IP4 203.0.113.5",
      "t=0 0",
      "m=audio 40000 RTP/AVP 0 8",
      "a=rtpmap:0 PCMU/8000",
      "a=recvonly",
    ].join("\r\n");
    const cases: Array<[string, string]> = [
      [plain, "Ответ браузера отклонён: звук принимается только по DTLS-SRTP (UDP/TLS/RTP/SAVPF)"],
      [
        chromiumAnswer((l) => l.map((line) => (line.startsWith("c=") ? "c=IN IP4 203.0.113.5" : line))),
        "Ответ браузера отклонён: адрес звука не из кандидатов ICE",
      ],
      [chromiumAnswer((l) => [...l, "a=rtcp:40001 IN IP4 203.0.113.5"]), "Ответ браузера отклонён: адрес звука не из кандидатов ICE"],
      [
        chromiumAnswer((l) => l.filter((line) => !line.startsWith("a=fingerprint"))),
        "Ответ браузера отклонён: нет отпечатка сертификата DTLS (a=fingerprint)",
      ],
      [chromiumAnswer((l) => l.filter((line) => !line.startsWith("a=setup"))), "Ответ браузера отклонён: нет роли DTLS (a=setup)"],
      [
        chromiumAnswer((l) => l.map((line) => (line.startsWith("a=setup") ? "a=setup:actpass" : line))),
        "Ответ браузера отклонён: нет роли DTLS (a=setup)",
      ],
      [chromiumAnswer((l) => l.filter((line) => !line.startsWith("a=ice-pwd"))), "Ответ браузера отклонён: нет данных ICE (a=ice-ufrag, a=ice-pwd)"],
      [
        chromiumAnswer((l) => l.map((line) => (line.startsWith("m=") ? "m=audio 50123 RTP/SAVP 111" : line))),
        "Ответ браузера отклонён: звук принимается только по DTLS-SRTP (UDP/TLS/RTP/SAVPF)",
      ],
      [
        chromiumAnswer((l) => [...l, "m=video 9 UDP/TLS/RTP/SAVPF 96"]),
        "Ответ браузера отклонён: звук принимается только по DTLS-SRTP (UDP/TLS/RTP/SAVPF)",
      ],
      ["hello, rtpengine", "Ответ браузера отклонён: это не описание сеанса SDP со звуком"],
    ];
    for (const [sdp, message] of cases) {
      const refused = await answer(sdp);
      expect(refused.status, message).toBe(400);
      expect(refused.body.message, sdp).toBe(message);
    }
    // The manager's answer to the whisper's offer, and the admin's offer of his microphone, alike.
    const managersAnswer = await listen(managerCookie, { intent: "heard", sessionId: "777", sdp: plain });
    expect(managersAnswer.status).toBe(400);
    expect(managersAnswer.body.message).toBe("Ответ браузера отклонён: звук принимается только по DTLS-SRTP (UDP/TLS/RTP/SAVPF)");
    const offer = await listen(adminCookie, {
      intent: "whisper",
      managerId: String(manager.user.id),
      sdp: plain.replace("a=recvonly", "a=sendonly"),
    });
    expect(offer.status).toBe(400);
    expect(offer.body.message).toBe("Предложение браузера отклонено: звук принимается только по DTLS-SRTP (UDP/TLS/RTP/SAVPF)");
    expect(await t.db.select().from(listenSessions).where(eq(listenSessions.managerId, manager.user.id))).toEqual([]);
  });
});
