/**
 * A score as a badge: green from 80, amber from 50, red below. Its own module, apart from the score's other parts
 * (ScoreParts.tsx): the client history, in the layout's chunk that every page loads, draws it; the rest are the
 * quality pages' (decision 094).
 */
export function ScoreBadge({ score, testId }: { score: number; testId?: string }) {
  const tone =
    score >= 80
      ? "bg-green-100 text-green-900 dark:bg-green-900/60 dark:text-green-100"
      : score >= 50
        ? "bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-100"
        : "bg-red-100 text-red-900 dark:bg-red-900/60 dark:text-red-100";
  return (
    <span className={`inline-block rounded-md px-2 py-0.5 text-sm font-semibold tabular-nums ${tone}`} data-testid={testId}>
      {score}
    </span>
  );
}
