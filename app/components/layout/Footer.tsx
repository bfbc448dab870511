import type { ReactNode } from "react";

/** SPEC Layout footer: the help link (and the softphone's hidden test-call button, passed in). */
export function Footer({ helpUrl, children }: { helpUrl: string; children?: ReactNode }) {
  return (
    <footer className="flex items-center justify-between border-t border-slate-200 px-4 py-3 text-xs text-slate-600 dark:text-slate-400 dark:border-slate-700">
      <a href={helpUrl} target="_blank" rel="noreferrer" className="hover:underline">
        Нужна помощь? Напишите нам
      </a>
      {children}
    </footer>
  );
}
