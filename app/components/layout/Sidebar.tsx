import { NavLink } from "@remix-run/react";
import type { ReactNode } from "react";
import { ChevronRightIcon } from "../ui/Icons";

interface SidebarProps {
  isAdmin: boolean;
  scripts: Array<{ id: number; name: string }>;
  /** Renders one script entry (the viewer belongs to the scripts feature). */
  renderScript?: (script: { id: number; name: string }) => ReactNode;
  /** The user's callbacks whose time has come (the count next to Мои перезвоны). */
  callbacksDue?: number;
}

// Compact enough that an admin's whole menu shows on a 1280x800 laptop without scrolling it (issue 17 walk).
const linkClass = ({ isActive }: { isActive: boolean }) =>
  `block rounded-md px-3 py-1.5 text-sm ${
    isActive ? "bg-blue-600 text-white" : "text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-700"
  }`;

function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mb-4">
      <p className="mb-2 px-3 text-xs font-semibold uppercase tracking-wider text-slate-600 dark:text-slate-400">{title}</p>
      <nav className="space-y-1" aria-label={title}>
        {children}
      </nav>
    </div>
  );
}

function Collapsible({ title, open, children }: { title: string; open?: boolean; children: ReactNode }) {
  return (
    <details open={open} className="group">
      <summary className="cursor-pointer list-none rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-700">
        <span className="inline-flex w-4 align-[-3px] transition group-open:rotate-90">
          <ChevronRightIcon />
        </span>{" "}
        {title}
      </summary>
      <div className="ml-4 mt-0.5 space-y-0.5">{children}</div>
    </details>
  );
}

/** SPEC Layout: ДЛЯ РАБОТЫ for everyone; Главная and УПРАВЛЕНИЕ for admins only (absent for managers). */
export function Sidebar({ isAdmin, scripts, renderScript, callbacksDue = 0 }: SidebarProps) {
  return (
    <div className="min-h-0 flex-1 overflow-y-auto p-4">
      <Group title="ДЛЯ РАБОТЫ">
        {isAdmin ? (
          <NavLink to="/" end className={linkClass}>
            Главная
          </NavLink>
        ) : null}
        <NavLink to="/leadpanel" className={linkClass}>
          Клиенты
        </NavLink>
        <NavLink to="/callbacks" className={linkClass} data-testid="callbacks-link">
          {isAdmin ? "Перезвоны" : "Мои перезвоны"}
          {callbacksDue > 0 ? (
            <span
              className="ml-2 inline-flex min-w-5 items-center justify-center rounded-full bg-red-600 px-1.5 text-xs font-semibold text-white"
              data-testid="callbacks-due"
              aria-label={`пора перезвонить: ${callbacksDue}`}
            >
              {callbacksDue}
            </span>
          ) : null}
        </NavLink>
        <Collapsible title="Скрипты">
          {scripts.length === 0 ? (
            <p className="px-3 py-1 text-xs text-slate-600 dark:text-slate-400">Скриптов пока нет</p>
          ) : (
            scripts.map((script) =>
              renderScript ? (
                renderScript(script)
              ) : (
                <p key={script.id} className="px-3 py-1 text-sm">
                  {script.name}
                </p>
              ),
            )
          )}
        </Collapsible>
      </Group>
      {isAdmin ? (
        <Group title="УПРАВЛЕНИЕ">
          <Collapsible title="Базы данных" open>
            <NavLink to="/loadedbases" className={linkClass}>
              Мои базы
            </NavLink>
            <NavLink to="/importbase" className={linkClass}>
              Импорт базы
            </NavLink>
            <NavLink to="/exportbase" className={linkClass}>
              Экспорт баз
            </NavLink>
            <NavLink to="/searchlead" className={linkClass}>
              Поиск клиента
            </NavLink>
            <NavLink to="/donotcall" className={linkClass}>
              Не звонить
            </NavLink>
          </Collapsible>
          <Collapsible title="Настройки" open>
            <NavLink to="/edit-statuses" className={linkClass}>
              Статусы
            </NavLink>
            <NavLink to="/managers" className={linkClass}>
              Менеджеры
            </NavLink>
            <NavLink to="/users" className={linkClass}>
              Юзеры онлайн
            </NavLink>
            <NavLink to="/access-log" className={linkClass}>
              Журнал доступа
            </NavLink>
            <NavLink to="/quality" className={linkClass}>
              Оценка звонков
            </NavLink>
            <NavLink to="/scripts" className={linkClass}>
              Настройка скриптов
            </NavLink>
            <NavLink to="/leadTemplate" className={linkClass}>
              Настройка шаблона
            </NavLink>
            <NavLink to="/basesettings" className={linkClass}>
              Настройки баз
            </NavLink>
            <NavLink to="/integrations" className={linkClass}>
              Интеграции
            </NavLink>
          </Collapsible>
          <NavLink to="/payments" className={linkClass}>
            Выплаты
          </NavLink>
        </Group>
      ) : null}
    </div>
  );
}
