/**
 * «Номер в списке «Не звонить»» in red (issue 42): a client on the do-not-call list who calls us is answered, and
 * his card says so, on the ringing card and on the lead panel.
 */
export function DoNotCallNotice({ testId }: { testId: string }) {
  return (
    <p className="font-semibold text-red-700 dark:text-red-400" role="note" data-testid={testId}>
      Номер в списке «Не звонить»
    </p>
  );
}
