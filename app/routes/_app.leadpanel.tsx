import * as Dialog from "@radix-ui/react-dialog";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { actorOf, requireUser } from "../auth.server";
import { clientHistory } from "../calls.server";
import { ClientHistory } from "../components/calls/ClientHistory";
import { CallButton } from "../components/leads/CallButton";
import {
  clientCardText,
  REPORT_CONFIRM,
  reportCardProblem,
  textColorFor,
  type CardFieldValue,
} from "../components/leads/clientCard";
import { LeadCard } from "../components/leads/LeadCard";
import { ServerMessage, notify, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { readFormBody } from "../forms.server";
import { findStatus, forwardApplication, leaveFilter, loadLeadPanel, recordStatus } from "../leads.server";
import { redirectWithToast } from "../toast.server";

export const meta: MetaFunction = () => [{ title: "Клиенты" }];

/** /leadpanel: the chosen topic's lead (held, or claimed now), the status buttons, the client card, the links. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const panel = await loadLeadPanel(context.deps.db, actorOf(user), context.deps.config.holdMinutes);
  const history = panel.lead ? await clientHistory(context.deps.db, actorOf(user), panel.lead.id) : [];
  return { ...panel, history, userId: user.id };
}

/** The client card as posted: cardLabel / cardValue pairs in template order. */
function readCard(form: FormData): CardFieldValue[] {
  const labels = form.getAll("cardLabel").map(String);
  const values = form.getAll("cardValue").map(String);
  return labels.map((label, i) => ({ label, value: values[i] ?? "" }));
}

interface ConfirmState {
  statusId: string;
  statusText: string;
  contactId: string;
  passport: string;
  card: CardFieldValue[];
}

/**
 * intent status: a status press (a report status first needs a filled card and a confirmation; without
 * JavaScript the confirmation is a section of the page). Then the next lead is on the page.
 * intent change-topic: back to /getFilters.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const actor = actorOf(user);
  const { db, config } = context.deps;
  const form = await readFormBody(request);
  const intent = String(form.get("intent") ?? "status");

  if (intent === "change-topic") {
    await leaveFilter(db, actor);
    return redirect("/getFilters");
  }

  const status = await findStatus(db, form.get("statusId"));
  if (!status) return data({ error: { code: "status_not_found", message: "Такого статуса нет" }, confirm: null }, { status: 400 });
  const card = readCard(form);
  const contactId = String(form.get("contactId") ?? "");
  const passport = String(form.get("passport") ?? "");

  if (status.isReportStatus) {
    const problem = reportCardProblem(card);
    if (problem) return data({ error: { code: "client_card_empty", message: problem }, confirm: null }, { status: 400 });
    if (form.get("confirmed") !== "1") {
      const confirm: ConfirmState = { statusId: String(status.id), statusText: status.text, contactId, passport, card };
      return data({ error: null, confirm });
    }
  }

  try {
    const result = await recordStatus(db, actor, config.holdMinutes, {
      statusText: status.text,
      contactId,
      userId: user.id,
      passport,
      filterId: user.gettingFilter,
      clientInfo: clientCardText(card),
    });
    if (result.applicationId) {
      try {
        const sent = await forwardApplication(db, config.applicationForwardUrl, result.applicationId);
        return redirectWithToast("/leadpanel", { type: "success", message: sent.message });
      } catch {
        return redirectWithToast("/leadpanel", { type: "error", message: "Ошибка при отправке" });
      }
    }
    return redirect("/leadpanel");
  } catch (error) {
    const answer = actionError(error);
    return data({ error: answer.data.error, confirm: null }, { status: answer.init?.status ?? 400 });
  }
}

/** SPEC §4 lead flow: with no lead on screen, look again 500 ms after start and then every 30 s. */
function useLeadPolling(hasLead: boolean) {
  const revalidator = useRevalidator();
  const state = useRef(revalidator);
  state.current = revalidator;
  useEffect(() => {
    if (hasLead) return;
    const again = () => {
      if (document.visibilityState === "visible" && state.current.state === "idle") state.current.revalidate();
    };
    const first = setTimeout(again, 500);
    const timer = setInterval(again, 30_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [hasLead]);
}

export default function LeadPanelPage() {
  const panel = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const navigation = useNavigation();
  const submit = useSubmit();
  const formRef = useRef<HTMLFormElement>(null);
  const [pendingReport, setPendingReport] = useState<{ statusId: number; text: string } | null>(null);
  const busy = navigation.state !== "idle";
  useLeadPolling(Boolean(panel.lead));

  // Keyboard work: a status press replaces the form with the next lead's, which drops the focus to the top of
  // the page; put it back on the status row (on the same status when the topic still has it).
  const pressedStatus = useRef<string | null>(null);
  const leadId = panel.lead?.id;
  useEffect(() => {
    if (busy || pressedStatus.current === null) return;
    const pressed = pressedStatus.current;
    pressedStatus.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const row = formRef.current?.querySelector<HTMLElement>("[data-testid=status-buttons]");
    (row?.querySelector<HTMLButtonElement>(`button[value="${pressed}"]`) ?? row?.querySelector("button"))?.focus();
  }, [leadId, busy]);

  const fields = panel.template?.fields ?? [];

  function cardFromForm(): CardFieldValue[] {
    const form = new FormData(formRef.current ?? undefined);
    return readCard(form);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    pressedStatus.current = submitter?.value ?? null;
    if (submitter?.dataset.report !== "true") return;
    // SPEC §4: a report status needs a filled card and the confirmation dialog.
    event.preventDefault();
    const problem = reportCardProblem(cardFromForm());
    if (problem) {
      notify("error", problem);
      return;
    }
    setPendingReport({ statusId: Number(submitter.value), text: submitter.textContent ?? "" });
  }

  function confirmReport() {
    if (!formRef.current || !pendingReport) return;
    const form = new FormData(formRef.current);
    form.set("statusId", String(pendingReport.statusId));
    form.set("intent", "status");
    form.set("confirmed", "1");
    setPendingReport(null);
    submit(form, { method: "post" });
  }

  const header = (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
      <h1 className="page-title mb-0">Клиенты</h1>
      {panel.filter ? (
        <Form method="post" className="flex items-center gap-3 text-sm">
          <span className="text-slate-600 dark:text-slate-400">
            Тематика: <strong data-testid="current-topic">{panel.filter.name}</strong>
          </span>
          <button type="submit" name="intent" value="change-topic" className="btn-secondary px-2 py-1 text-xs">
            Сменить тематику
          </button>
        </Form>
      ) : null}
    </div>
  );

  const message = answer?.error ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null;

  if (!panel.filter) {
    return (
      <section>
        {header}
        <div className="card space-y-3 text-sm">
          <p>Тематика не выбрана.</p>
          <Link to="/getFilters" className="btn-primary">
            Выбрать тематику
          </Link>
        </div>
      </section>
    );
  }

  return (
    <section>
      {header}
      {message}
      {answer?.confirm ? <NoScriptConfirm confirm={answer.confirm} /> : null}
      {panel.lead ? (
        <Form
          method="post"
          ref={formRef}
          key={panel.lead.id}
          onSubmit={onSubmit}
          className="space-y-4"
          data-testid="lead-form"
        >
          <input type="hidden" name="intent" value="status" />
          <input type="hidden" name="contactId" value={panel.lead.id} />
          <div className="flex flex-wrap gap-2" data-testid="status-buttons">
            {panel.statuses.map((status) => (
              <button
                key={status.id}
                type="submit"
                name="statusId"
                value={status.id}
                data-report={status.isReportStatus ? "true" : "false"}
                disabled={busy}
                className="btn shadow-sm"
                style={{ backgroundColor: status.color, color: textColorFor(status.color) }}
              >
                {status.buttonText || status.text}
              </button>
            ))}
          </div>
          <div className="grid gap-4 lg:grid-cols-2">
            <LeadCard lead={panel.lead} action={<CallButton phone={panel.lead.phone} contactId={panel.lead.id} />} />
            <section className="card space-y-3" aria-label="Карточка клиента">
              <h2 className="text-lg font-semibold">{panel.template ? panel.template.name : "Карточка клиента"}</h2>
              {fields.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">В шаблоне тематики нет полей.</p>
              ) : (
                fields.map((field, i) => (
                  <div key={`${field.label}-${i}`}>
                    <label className="label" htmlFor={`card-${i}`}>
                      {field.label}
                    </label>
                    <input type="hidden" name="cardLabel" value={field.label} />
                    {field.type === "textarea" ? (
                      <textarea id={`card-${i}`} name="cardValue" className="input min-h-24" />
                    ) : (
                      <input id={`card-${i}`} name="cardValue" className="input" />
                    )}
                  </div>
                ))
              )}
              <div>
                <label className="label" htmlFor="passport">
                  Паспорт
                </label>
                <input id="passport" name="passport" className="input" placeholder="Введите паспорт" autoComplete="off" />
              </div>
            </section>
          </div>
          <section className="card space-y-2" aria-labelledby="client-history-title">
            <h2 id="client-history-title" className="text-lg font-semibold">
              История клиента
            </h2>
            <ClientHistory entries={panel.history} />
          </section>
        </Form>
      ) : (
        <p className="card text-center text-base" data-testid="no-leads">
          Для вас нет доступных лидов
        </p>
      )}
      {panel.links.length > 0 ? (
        <nav aria-label="Ссылки" className="mt-4 flex flex-wrap gap-2" data-testid="lead-links">
          {panel.links.map((link) => (
            <a key={link.id} href={link.link} target="_blank" rel="noopener noreferrer" className="btn-secondary">
              {link.name}
            </a>
          ))}
        </nav>
      ) : null}

      <Dialog.Root open={pendingReport !== null} onOpenChange={(open) => (open ? undefined : setPendingReport(null))}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
          <Dialog.Content
            className="fixed left-1/2 top-1/2 z-50 w-[95vw] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-5 shadow-xl dark:bg-slate-800"
            data-testid="report-confirm"
          >
            <Dialog.Title className="mb-2 text-lg font-semibold">{pendingReport?.text}</Dialog.Title>
            <Dialog.Description className="mb-4 text-sm">{REPORT_CONFIRM}</Dialog.Description>
            <div className="flex justify-end gap-2">
              <Dialog.Close className="btn-secondary">Закрыть</Dialog.Close>
              <button type="button" className="btn-primary" onClick={confirmReport}>
                Да, я уверен!
              </button>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </section>
  );
}

/** The report confirmation without JavaScript: the same question, the card carried in hidden fields. */
function NoScriptConfirm({ confirm }: { confirm: ConfirmState }) {
  return (
    <section className="card mb-4 border-amber-300" data-testid="report-confirm">
      <h2 className="mb-2 text-lg font-semibold">{confirm.statusText}</h2>
      <p className="mb-3 text-sm">{REPORT_CONFIRM}</p>
      <pre className="mb-3 whitespace-pre-wrap rounded bg-slate-50 p-2 text-sm dark:bg-slate-900">
        {clientCardText(confirm.card)}
      </pre>
      <Form method="post" className="flex justify-end gap-2">
        <input type="hidden" name="intent" value="status" />
        <input type="hidden" name="confirmed" value="1" />
        <input type="hidden" name="statusId" value={confirm.statusId} />
        <input type="hidden" name="contactId" value={confirm.contactId} />
        <input type="hidden" name="passport" value={confirm.passport} />
        {confirm.card.map((field, i) => (
          <span key={i} hidden>
            <input type="hidden" name="cardLabel" value={field.label} />
            <input type="hidden" name="cardValue" value={field.value} />
          </span>
        ))}
        <Link to="/leadpanel" className="btn-secondary">
          Закрыть
        </Link>
        <button type="submit" className="btn-primary">
          Да, я уверен!
        </button>
      </Form>
    </section>
  );
}
