import type { ActionFunctionArgs } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { CARD_EMPTY, clientCardText, reportCardProblem } from "../common/client-card";
import type { Db } from "../db/client";
import { actorOf, loginAgain, readSessionToken, requireUser } from "./auth.server";
import type { CallbackTimes, ConfirmState, PressAnswer, TurnView } from "./components/leadpanel/answer";
import { actionError, isAppError, pressOutageAnswer } from "./errors.server";
import { readFormBody } from "./forms.server";
import {
  CALLBACK_PRESETS,
  callbackTimeFromForm,
  dateToKyivLocal,
  findStatus,
  leadView,
  leaveFilter,
  pressedStatusNotFound,
  pressOutcomeMessage,
  pressStatus,
  readPressForm,
} from "./leads.server";
import { redirectWithToast } from "./toast.server";

/*
 * The status press, one module (issues 31 and 40). Two doors lead here: the lead panel's form without JavaScript
 * posts to /leadpanel (its route's action is pressAction, and the page shows a question the press asks), and the
 * page's script posts to PRESS_PATH, where server/web.ts calls `press` (exported by app/entry.server.tsx) outside
 * Remix's request handler (decision 068) and sends its JSON answer.
 */

/** The callback time's quick choices and the free choice's bounds (Kyiv wall clock), computed here (issue 18). */
export function callbackTimesNow(): CallbackTimes {
  const now = new Date();
  return {
    presets: CALLBACK_PRESETS.map((p) => ({ value: p.value, label: p.label })),
    min: dateToKyivLocal(now),
    initial: dateToKyivLocal(new Date(now.getTime() + 3600_000)),
  };
}

/** A press refused (core's AppError or the page's own check) as the press's answer. */
function refused(error: { code: string; message: string }, httpStatus: number, rest: Partial<PressAnswer> = {}) {
  return data<PressAnswer>(
    { error, confirm: null, callback: null, next: null, message: null, refreshLayout: false, ...rest },
    { status: httpStatus },
  );
}

/** Core's refusal (an AppError; anything else is thrown on by actionError) as the press's answer. */
function refusedBy(error: unknown, rest: Partial<PressAnswer> = {}) {
  const refusal = actionError(error);
  return refused(refusal.data.error, refusal.init?.status ?? 400, rest);
}

/** A question the press asks first (the report's confirmation, the callback time). */
function asks(rest: Partial<PressAnswer>) {
  return data<PressAnswer>({ error: null, confirm: null, callback: null, next: null, message: null, refreshLayout: false, ...rest });
}

/**
 * intent status: a status press (a report status first needs a filled card and a confirmation; without
 * JavaScript the confirmation is a section of the page). Then the next lead is on the page.
 * intent change-topic: back to /getFilters.
 */
export async function pressAction({ request, context }: ActionFunctionArgs) {
  const { db, config } = context.deps;
  // The session's token and the form (through PressFields). A status press checks the session in its turn
  // statement (decision 069); anything else (a form refused, the topic left) is answered after Lucia's check.
  const [token, form] = await Promise.all([readSessionToken(request, context), readFormBody(request).then(readPressForm)]);
  if (!token) throw await loginAgain(context);
  if (!form.ok || form.value.intent === "change-topic" || form.value.statusId === null) {
    const user = await requireUser(request, context);
    if (!form.ok) return refused({ code: "validation", message: form.message }, 400);
    if (form.value.intent !== "change-topic") return refusedBy(pressedStatusNotFound());
    await leaveFilter(db, actorOf(user));
    return redirect("/getFilters");
  }
  const { answer, contactId, passport, card, confirmed, callbackPreset, callbackLocal, callbackNote } = form.value;
  const statusId = form.value.statusId;
  const pressed = { statusId, contactId, passport, card, confirmed, callbackNote };

  // Issue 18: the callback time, when one came with the press (the turn records it for a status that asks for one).
  // One it cannot read is no time: a status that asks for one is refused for want of it, and told why below.
  let callbackAt: Date | null = null;
  let unreadTime: unknown = null;
  if (callbackPreset || callbackLocal) {
    try {
      callbackAt = callbackTimeFromForm(callbackPreset, callbackLocal);
    } catch (error) {
      unreadTime = error;
    }
  }

  // The page's script takes the next lead in the answer; a plain form post (no JavaScript) is redirected.
  const answerPanel = answer === "panel";
  try {
    // The turn checks the status itself (issue 31: no query before it): a report's card and confirmation, a
    // callback's time. What it refuses for want of them is asked below.
    const turn = await pressStatus(
      db,
      token,
      config.holdMinutes,
      {
        statusId,
        contactId,
        passport,
        clientInfo: clientCardText(card),
        callbackAt: callbackAt?.toISOString() ?? null,
        callbackNote,
      },
      { phoneRegion: config.phoneRegion, panelView: answerPanel, reportConfirmed: confirmed },
    );
    // Not a live session (logged out, ended by an admin, expired): nothing was recorded.
    if (!turn) throw await loginAgain(context);
    const { result, actor } = turn;
    context.deps.metrics.leadTurn(result.lead !== null);
    // The page's script shows the next lead from the answer (the turn read what the panel shows of it; a client
    // with history needs one query more); a plain post loads the page again.
    const message = pressOutcomeMessage(result);
    const view = answerPanel ? await leadView(db, actor, result.filterId, result.lead, config.phoneRegion, result.view) : null;
    if (view) {
      // A few kilobytes the panel waits for: sent as they are, not through gzip (on an event loop busy with other
      // managers' turns, the compressor's last flush waited for its turn, ~10 ms a press on PGlite).
      const next: TurnView = { ...view, callbackTimes: callbackTimesNow(), readAt: Date.now() };
      // The layout's figures this press may have changed: a report credits the balance; a callback handed out
      // changes the menu's count of due callbacks.
      const refreshLayout = result.applicationId !== null || result.callbackHanded;
      return data<PressAnswer>(
        { error: null, confirm: null, callback: null, next, message, refreshLayout },
        { headers: { "Cache-Control": "no-store, no-transform" } },
      );
    }
    return message ? redirectWithToast("/leadpanel", message) : redirect("/leadpanel");
  } catch (error) {
    if (error instanceof Response) throw error;
    return pressHeldBack(db, error, pressed, unreadTime);
  }
}

type Pressed = Omit<ConfirmState, "statusId" | "statusText"> & { statusId: number; confirmed: boolean };

const confirmState = ({ statusId, contactId, passport, card }: Pressed, status: { text: string }): ConfirmState => ({
  statusId: String(statusId),
  statusText: status.text,
  contactId,
  passport,
  card,
});

/**
 * A press the turn refused: what the status still needs is asked (a report's confirmation, a callback's time, with
 * the reason a time sent was not read: `unreadTime`) or said (an empty card, SPEC §4); anything else is core's
 * refusal. The status is read only here, for its name.
 */
async function pressHeldBack(db: Db, error: unknown, pressed: Pressed, unreadTime: unknown) {
  const code = isAppError(error) ? error.code : null;
  if (code !== "client_card_empty" && code !== "report_not_confirmed" && code !== "callback_time_missing") return refusedBy(error);
  const status = await findStatus(db, pressed.statusId);
  if (!status) return refusedBy(pressedStatusNotFound());
  if (code === "client_card_empty") return refused({ code, message: reportCardProblem(pressed.card) ?? CARD_EMPTY }, 400);
  if (code === "report_not_confirmed") return asks({ confirm: confirmState(pressed, status) });
  const callback = { ...confirmState(pressed, status), confirmed: pressed.confirmed, callbackNote: pressed.callbackNote };
  return unreadTime ? refusedBy(unreadTime, { callback }) : asks({ callback });
}

/**
 * The press sent by the lead panel's script: pressAction's answer as JSON (PressAnswer), written in one piece. The
 * page fetches PRESS_PATH itself rather than through the router, so a press is one request: nothing is rendered
 * before it leaves, and no loader runs again after it unless the answer asks for it (decision 065).
 */
export async function press(args: ActionFunctionArgs): Promise<Response> {
  const answer = await pressAction(args).catch((error: unknown) => pressOutageAnswer(error, args.context));
  // A redirect (the session ended, a plain post that lost its answer=panel) goes to the page as it is.
  if (!("init" in answer)) return answer;
  // With its length: the body is written in one piece, and the browser has it all with those bytes. Without it
  // the answer is chunked and ends with a last empty chunk that the adapter writes a turn of the event loop later,
  // behind whatever other managers' requests hold the loop then (2-8 ms a press in the paint bench's trace).
  const body = JSON.stringify(answer.data);
  const headers = new Headers(answer.init?.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Content-Length", String(Buffer.byteLength(body)));
  return new Response(body, { status: answer.init?.status ?? 200, headers });
}

/** What server/web.ts calls for a press (the entry module's `press`). */
export type PressHandler = typeof press;
