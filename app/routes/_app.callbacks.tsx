import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { useState } from "react";
import { CALLBACK_NOTE_MAX, CALLBACK_NOTE_TOO_LONG } from "../../common/callback-note";
import { Form, type ShouldRevalidateFunction, useActionData, useLoaderData } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { ChoiceOptions, ListFilter } from "../components/ui/ListFilter";
import { TableFrame } from "../components/ui/Table";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError, isAppError, orAppMessage } from "../errors.server";
import { formIntent, readFields, readFormBody } from "../forms.server";
import {
  displayPhone,
  editCallbackNote,
  formatKyiv,
  listAllCallbacks,
  listCallbackChoices,
  listMyCallbacks,
  NoteFields,
  reassignCallback,
  ReassignFields,
  takeCallback,
  TakeFields,
} from "../leads.server";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Перезвоны" }];

const PAGE = "/callbacks";

/**
 * /callbacks (issue 18): a manager's Мои перезвоны (due and upcoming; take one now); the admin's list of every
 * pending callback by manager and topic, each reassignable and its note editable. Plain forms: all of it works
 * without JavaScript.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const actor = actorOf(user);
  const { db, config } = context.deps;
  const url = new URL(request.url);
  // The phone as the card and the search show it (one readable national format, issue 17).
  const show = <T extends { dueAt: string; phone: string }>(list: T[]) =>
    list.map((c) => ({ ...c, dueText: formatKyiv(c.dueAt), phone: displayPhone(c.phone, config.phoneRegion) }));
  if (user.isAdmin) {
    const userId = url.searchParams.get("userId") || undefined;
    const filterId = url.searchParams.get("filterId") || undefined;
    // A hand-edited address (?userId=abc) gets the core's message over an empty list; a real failure is thrown.
    const [listed, choices] = await Promise.all([orAppMessage(listAllCallbacks(db, actor, { userId, filterId })), listCallbackChoices(db, actor)]);
    const callbacks = show(listed.value ?? []);
    return { admin: true as const, callbacks, choices, userId: userId ?? "", filterId: filterId ?? "", listError: listed.message };
  }
  return { admin: false as const, callbacks: show(await listMyCallbacks(db, actor)), choices: null, userId: "", filterId: "", listError: null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const actor = actorOf(user);
  const { db, config } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  try {
    if (intent === "take") {
      await takeCallback(db, actor, config.holdMinutes, readFields(form, TakeFields).id);
      return redirect("/leadpanel");
    }
    if (intent === "note") {
      // A manager's own callback or, for an admin, anyone's: core says who may (editCallbackNote).
      const { id, note, back } = readFields(form, NoteFields);
      try {
        await editCallbackNote(db, actor, id, { note });
      } catch (error) {
        // Refused (too long, not his, gone): said under this callback's field, with what he typed kept.
        if (!isAppError(error)) throw error;
        return data({ error: { code: error.code, message: error.message }, noteFor: id, note }, { status: error.status });
      }
      return redirectWithToast(listAt(back), { type: "success", message: "Заметка сохранена" });
    }
    if (intent === "reassign") {
      const { id, back, ...input } = readFields(form, ReassignFields);
      await reassignCallback(db, actor, id, input);
      return redirectWithToast(listAt(back), { type: "success", message: "Перезвон передан" });
    }
    return redirect(PAGE);
  } catch (error) {
    return actionError(error);
  }
}

/** The list to come back to: the admin's as he filtered it (a form's `back`), never another address. */
const listAt = (back: string) => (back.startsWith(`${PAGE}?`) ? back : PAGE);

/**
 * A refused "Позвонить сейчас" still changes the list (a callback whose number is on «Не звонить» is closed by it,
 * one taken meanwhile is gone): the list is read again, which the page's script skips after a 4xx by default.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) =>
  formData?.get("intent") === "take" ? true : defaultShouldRevalidate;

type Row = ReturnType<typeof useLoaderData<typeof loader>>["callbacks"][number];

function stateOf(c: Row) {
  if (c.overdue) return "Просрочен";
  if (c.due) return "Пора звонить";
  return "Ожидает";
}

export default function CallbacksPage() {
  const page = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  // A refused note is said at its field (NoteEditor, in his list or the admin's table); one of a callback not shown
  // (another's, gone meanwhile) as the page's message.
  const noteAnswer = isRefusedNote(answer) && page.callbacks.some((c) => c.id === answer.noteFor) ? answer : null;
  const message =
    answer && !noteAnswer && "error" in answer && answer.error ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null;

  if (!page.admin) {
    const due = page.callbacks.filter((c) => c.due);
    const upcoming = page.callbacks.filter((c) => !c.due);
    return (
      <section className="max-w-3xl space-y-4">
        <h1 className="page-title">Мои перезвоны</h1>
        {message}
        <MyList title="Пора перезвонить" rows={due} empty="Просроченных перезвонов нет" testId="callbacks-due-list" refused={noteAnswer} />
        <MyList title="Предстоящие" rows={upcoming} empty="Запланированных перезвонов нет" testId="callbacks-upcoming-list" refused={noteAnswer} />
      </section>
    );
  }

  const back = `${PAGE}?userId=${page.userId}&filterId=${page.filterId}`;
  return (
    <section className="space-y-4">
      <h1 className="page-title">Перезвоны</h1>
      {message}
      {page.listError ? <ServerMessage kind="error" message={page.listError} /> : null}
      <Form method="get" className="card flex flex-wrap items-end gap-3">
        <ListFilter id="by-user" name="userId" label="Менеджер" value={page.userId} choices={page.choices.managers} />
        <ListFilter id="by-topic" name="filterId" label="Тематика" value={page.filterId} choices={page.choices.topics} />
        <button type="submit" className="btn-secondary">
          Показать
        </button>
      </Form>
      {page.callbacks.length === 0 ? (
        <p className="card text-sm">Запланированных перезвонов нет</p>
      ) : (
        // On a phone one card per callback, each value labelled (.stack-table), the reassign form included.
        <TableFrame className="card p-0">
          <table className="stack-table min-w-full text-sm" data-testid="callbacks-table">
            <thead>
              <tr className="text-left">
                <th className="p-2">Когда (Киев)</th>
                <th className="p-2">Клиент</th>
                <th className="p-2">Телефон</th>
                <th className="p-2">Тематика</th>
                <th className="p-2">Состояние</th>
                <th className="p-2">Менеджер</th>
              </tr>
            </thead>
            <tbody>
              {page.callbacks.map((c) => (
                <tr key={c.id} className="border-t border-slate-200 dark:border-slate-700" data-testid="callback-row">
                  <td data-label="Когда (Киев)" className="p-2">
                    {c.dueText}
                  </td>
                  <td data-label="Клиент" className="p-2">
                    {/* One box: a phone's card makes the cell a grid of label and value; the note goes under the name. */}
                    <div className="min-w-0">
                      {c.name}
                      {c.note ? (
                        <span className="block whitespace-pre-wrap text-xs text-slate-600 dark:text-slate-400" data-testid="callback-note">
                          {c.note}
                        </span>
                      ) : null}
                    </div>
                  </td>
                  <td data-label="Телефон" className="p-2 whitespace-nowrap">
                    {c.phone}
                  </td>
                  <td data-label="Тематика" className="p-2">
                    {c.filter?.name ?? "—"}
                  </td>
                  <td data-label="Состояние" className="p-2">
                    {/* One box, as the client's: on a phone the reason stays under the state, not in the label's column. */}
                    <div className="min-w-0">
                      {stateOf(c)}
                      {/* Why it is there (issue 42): the status that scheduled it, or «Пропущенный входящий, 14:02». */}
                      <span className="block text-xs text-slate-600 dark:text-slate-400" data-testid="callback-reason">
                        {c.statusText}
                      </span>
                      {c.waitsForHours ? <span className="block text-xs text-amber-800 dark:text-amber-300">{c.waitsForHours}</span> : null}
                    </div>
                  </td>
                  {/* Issue 31: the manager is the menu's choice, whole (it was a 144 px menu beside a column of names). */}
                  <td className="p-2" data-label="Менеджер">
                    {/* A card on a phone is too narrow for the menu to show a long name whole: it is said first. */}
                    <div className="min-w-0">
                      <span className="mb-1 block md:hidden">{c.user?.name ?? "—"}</span>
                      <Form method="post" className="flex min-w-0 flex-wrap items-center gap-2">
                        <input type="hidden" name="intent" value="reassign" />
                        <input type="hidden" name="id" value={c.id} />
                        <input type="hidden" name="back" value={back} />
                        <select
                          name="userId"
                          defaultValue={c.user?.id ?? ""}
                          className="input min-w-0 flex-1 py-1 text-sm md:w-auto md:flex-none"
                          aria-label={`Менеджер для ${c.name || c.phone}`}
                        >
                          {c.user ? null : (
                            <option value="" disabled>
                              — не назначен —
                            </option>
                          )}
                          <ChoiceOptions choices={page.choices.managers} />
                        </select>
                        <button type="submit" className="btn-secondary shrink-0 whitespace-nowrap px-2 py-1 text-xs">
                          Передать
                        </button>
                      </Form>
                      {/*
                        Issue 41 §7: the admin writes anyone's note again, as the manager does his own. Here, with the
                        row's other action: this column is as wide as the menu's longest name, so the open field takes
                        no room from the others (under the client, at 1280 px it made the table scroll sideways).
                      */}
                      <NoteEditor key={c.note} row={c} refused={noteAnswer?.noteFor === c.id ? noteAnswer : null} back={back} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </section>
  );
}

/** A note the server refused: which callback's, what was typed, and why. */
type RefusedNote = { noteFor: number; note: string; error: { message: string } };
const isRefusedNote = (answer: unknown): answer is RefusedNote => typeof answer === "object" && answer !== null && "noteFor" in answer;

function MyList({ title, rows, empty, testId, refused }: { title: string; rows: Row[]; empty: string; testId: string; refused: RefusedNote | null }) {
  return (
    <section className="card space-y-2" aria-label={title} data-testid={testId}>
      <h2 className="text-lg font-semibold">{title}</h2>
      {rows.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">{empty}</p>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-700">
          {rows.map((c) => (
            <li key={c.id} className="flex flex-wrap items-center gap-3 py-2" data-testid="callback-row">
              {/* On a phone the time is a line of its own: the client, his note and its field get the width. */}
              <span className="w-full whitespace-nowrap font-medium sm:w-36">{c.dueText}</span>
              <div className="w-full min-w-0 sm:w-auto sm:flex-1">
                {c.name} <span className="whitespace-nowrap text-slate-600 dark:text-slate-400">{c.phone}</span>
                {c.filter ? <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">{c.filter.name}</span> : null}
                {/* Why it is here: the status that scheduled it, or «Пропущенный входящий, 14:02» (issue 42). */}
                <span className="block text-xs text-slate-600 dark:text-slate-400" data-testid="callback-reason">
                  {c.statusText}
                </span>
                {c.note ? (
                  // Issue 41 §7: what he wrote when he scheduled it.
                  <span className="block whitespace-pre-wrap text-sm" data-testid="callback-note">
                    {c.note}
                  </span>
                ) : null}
                {c.waitsForHours ? (
                  <span className="block text-xs text-amber-800 dark:text-amber-300" data-testid="callback-waits">
                    {c.waitsForHours}
                  </span>
                ) : null}
                {/* Saved: the list is read again with the new note, and the editor (keyed by it) starts closed. */}
                <NoteEditor key={c.note} row={c} refused={refused?.noteFor === c.id ? refused : null} />
              </div>
              <Form method="post">
                <input type="hidden" name="intent" value="take" />
                <input type="hidden" name="id" value={c.id} />
                <button type="submit" className="btn-primary px-3 py-1 text-sm">
                  Позвонить сейчас
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The callback's note written again (issue 41 §7), in the manager's list and the admin's table: a disclosure that
 * opens a field and «Сохранить заметку» (a plain form post: without JavaScript too; `back`: the admin's list as he
 * filtered it). A note too long is refused at the field, by the browser before it asks (the same limit and words as
 * core's, common/callback-note.ts) and by the server without JavaScript.
 */
function NoteEditor({ row, refused, back }: { row: Row; refused: RefusedNote | null; back?: string }) {
  const [tooLong, setTooLong] = useState(false);
  const error = tooLong ? CALLBACK_NOTE_TOO_LONG : (refused?.error.message ?? null);
  const fieldId = `callback-note-${row.id}`;
  const errorId = `${fieldId}-error`;
  return (
    <details className="mt-1" open={refused ? true : undefined} data-testid="callback-note-editor">
      <summary className="cursor-pointer text-sm text-blue-700 underline-offset-2 hover:underline dark:text-blue-300">
        {row.note ? "Изменить заметку" : "Добавить заметку"}
      </summary>
      <Form
        method="post"
        className="mt-2 space-y-2"
        onSubmit={(event) => {
          const note = new FormData(event.currentTarget).get("note");
          const long = typeof note === "string" && note.trim().length > CALLBACK_NOTE_MAX;
          setTooLong(long);
          if (long) event.preventDefault();
        }}
      >
        <input type="hidden" name="intent" value="note" />
        <input type="hidden" name="id" value={row.id} />
        {back ? <input type="hidden" name="back" value={back} /> : null}
        <label htmlFor={fieldId} className="block text-sm font-medium">
          Заметка к перезвону
        </label>
        <textarea
          id={fieldId}
          name="note"
          rows={3}
          defaultValue={refused ? refused.note : row.note}
          className="input block w-full text-sm"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          onInput={tooLong ? () => setTooLong(false) : undefined}
        />
        {error ? (
          <p id={errorId} className="text-sm text-red-700 dark:text-red-400" data-field-error="">
            {error}
          </p>
        ) : null}
        <button type="submit" className="btn-secondary px-3 py-1 text-sm">
          Сохранить заметку
        </button>
      </Form>
    </details>
  );
}
