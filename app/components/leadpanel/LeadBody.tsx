import { memo } from "react";
import type { HistoryEntry } from "../../calls.server";
import type { LeadPanel } from "../../leads.server";
import { ClientHistory } from "../calls/ClientHistory";
import { CallButton } from "../leads/CallButton";
import { LeadCard } from "../leads/LeadCard";
import { DO_NOT_CALL_REFUSAL } from "../../../common/proxy-refusals";
import { DoNotCallNotice } from "../ui/DoNotCallNotice";

/**
 * The lead's card and the client card's fields (the history is LeadHistory, after them). Rendered again only when the lead or its answer
 * changes (not while a press is in flight or the layout refreshes); the fields come back empty for each new
 * lead (SPEC §4: the client card is cleared), also when the same client comes back after a press.
 */
export const LeadBody = memo(function LeadBody({
  lead,
  callback,
  doNotCall,
  card,
  cardFields,
  template,
  cardKey,
  cardProblem,
  onCardInput,
}: {
  lead: NonNullable<LeadPanel["lead"]>;
  /** The callback this lead is (issue 41 §7): its time and note, above the card. */
  callback: LeadPanel["callback"];
  /** The client's number is on the do-not-call list (he called in: issue 42): said in red above the card. */
  doNotCall: boolean;
  card: LeadPanel["card"];
  /** The template's fields with the values they start with (core's: the saved card, else the base's column). */
  cardFields: LeadPanel["cardFields"];
  template: LeadPanel["template"];
  cardKey: string;
  /** A report press found the card empty (SPEC's message): every field is marked with it, and it shows over them. */
  cardProblem: string | null;
  onCardInput: () => void;
}) {
  const fields = template ? cardFields : [];
  const invalid = cardProblem ? { "aria-invalid": true, "aria-describedby": "card-problem" } : {};
  const marked = cardProblem ? "border-red-600 dark:border-red-400" : "";
  return (
    <>
      {doNotCall ? <DoNotCallNotice testId="lead-do-not-call" /> : null}
      {callback ? (
        <section
          className="card space-y-1 border-blue-300 bg-blue-50 dark:border-blue-700 dark:bg-blue-950"
          aria-label="Перезвон"
          data-testid="lead-callback"
        >
          <p className="text-base font-semibold">Перезвон на {callback.dueText}</p>
          {callback.note ? (
            <p className="whitespace-pre-wrap text-sm" data-testid="lead-callback-note">
              {callback.note}
            </p>
          ) : null}
        </section>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-2">
        <LeadCard
          rows={card}
          attempt={lead.attempt}
          contactCalls={lead.contactCalls}
          action={<CallButton phone={lead.phone} contactId={lead.id} refusal={doNotCall ? DO_NOT_CALL_REFUSAL : null} />}
        />
        <section key={cardKey} className="card space-y-3" aria-label="Карточка клиента" onInput={cardProblem ? onCardInput : undefined}>
          <h2 className="text-lg font-semibold [overflow-wrap:anywhere]">{template ? template.name : "Карточка клиента"}</h2>
          {cardProblem ? (
            <p id="card-problem" className="text-sm font-medium text-red-700 dark:text-red-400" data-testid="card-problem">
              {cardProblem}
            </p>
          ) : null}
          {fields.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">В шаблоне тематики нет полей.</p>
          ) : (
            fields.map((field, i) => (
              <div key={`${field.label}-${i}`}>
                <label className="label" htmlFor={`card-${i}`}>
                  {field.label}
                </label>
                <input type="hidden" name="cardLabel" value={field.label} />
                {/* A field named as (or tied to) a base column starts with the client's value (issue 41). */}
                {field.type === "textarea" ? (
                  <textarea id={`card-${i}`} name="cardValue" className={`input min-h-24 ${marked}`} defaultValue={field.value} {...invalid} />
                ) : (
                  <input id={`card-${i}`} name="cardValue" className={`input ${marked}`} defaultValue={field.value} {...invalid} />
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
    </>
  );
});

/** The client's history, after the card and its «К статусам» link (issue 41: one Tab from the card's last field). */
export const LeadHistory = memo(function LeadHistory({ history }: { history: HistoryEntry[] }) {
  return (
    <section className="card space-y-2" aria-labelledby="client-history-title">
      <h2 id="client-history-title" className="text-lg font-semibold">
        История клиента
      </h2>
      <ClientHistory entries={history} />
    </section>
  );
});
