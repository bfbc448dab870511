/** An honest state for a screen whose feature has not landed yet (issue 2 allows it until that issue lands). */
export function Unfinished({ title }: { title: string }) {
  return (
    <section>
      <h1 className="page-title">{title}</h1>
      <div className="card text-sm text-slate-600 dark:text-slate-400">
        Этот раздел ещё не готов: он появится в одном из следующих выпусков.
      </div>
    </section>
  );
}
