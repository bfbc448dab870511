import type { ReactNode } from "react";
import type { LeadCardRow } from "../../../server/core/leads/card";
import { attemptLabel, type LeadAttempt } from "../../../common/attempt";
import { type ContactCalls, contactCallsLabel } from "../../../common/contact-limits";

/**
 * SPEC /leadpanel client info, as core prepares it: name and phone always, then city, address and the extra
 * fields that have a value, the extras labelled with the import's column headers.
 */
export function LeadCard({
  rows,
  action,
  attempt = null,
  contactCalls = [],
}: {
  rows: LeadCardRow[];
  action?: ReactNode;
  attempt?: LeadAttempt | null;
  contactCalls?: ContactCalls[];
}) {
  const callsLabel = contactCallsLabel(contactCalls);
  return (
    <section className="card" aria-label="Клиент" data-testid="lead-card">
      <div className="mb-3 flex items-center justify-between gap-3">
        <h2 className="text-lg font-semibold">Клиент</h2>
        {action}
      </div>
      {/* The topic's retry rule for this client's status (decision 057): which attempt this is. */}
      {attempt ? (
        <p className="mb-2 text-sm font-medium text-amber-800 dark:text-amber-300" data-testid="lead-attempt">
          {attemptLabel(attempt)}
        </p>
      ) : null}
      {/* The topic's contact limits (decision 075): the calls to this client this day, week, month. */}
      {callsLabel ? (
        <p className="mb-2 text-sm font-medium text-amber-800 dark:text-amber-300" data-testid="lead-contact-calls">
          {callsLabel}
        </p>
      ) : null}
      {/*
        A long import header wraps within its column (at most 12rem) rather than squeezing the value. On a phone
        the label sits over its value, and the pairs are spaced apart from each other, not label from value.
      */}
      <dl className="grid gap-x-4 gap-y-0.5 sm:grid-cols-[minmax(5rem,max-content)_1fr] sm:gap-y-2 sm:[&>div>dt]:max-w-[12rem] [&>div:not(:first-child)>dt]:mt-2 sm:[&>div>dt]:!mt-0">
        {rows.map((row) => (
          <div key={row.key} className="contents">
            <dt className="text-sm text-slate-600 dark:text-slate-400" data-testid={`lead-${row.key}-label`}>
              {row.label}
            </dt>
            <dd className={`break-words text-sm font-medium ${row.key === "phone" ? "tabular-nums" : ""}`} data-testid={`lead-${row.key}`}>
              {row.value || "—"}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
