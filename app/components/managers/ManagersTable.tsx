import { Form, Link, useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { notify } from "../ui/Toasts";
import { OneLine, TableFrame } from "../ui/Table";
import { useHydrated } from "../ui/hydrated";
import { EDITABLE_FIELDS, FIELD_LABELS, type EditableField, type ManagerRow, type ManagersActionData } from "./types";
import { CheckIcon, CloseIcon, PencilIcon, TrashIcon } from "../ui/Icons";

interface ManagersTableProps {
  users: ManagerRow[];
  meId: number;
  /** JavaScript off: the row being edited as one form (?edit=id). */
  editId: number | null;
  /** Where the no-JS forms return to (the current page and size). */
  returnTo: string;
  /** Link that keeps page and size and sets one more parameter (?confirm=admin-id / delete-id asks first). */
  hrefWith(name: string, value: string): string;
}

const rowAction =
  "inline-flex h-8 w-8 items-center justify-center rounded-md border border-slate-300 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-700";

/** How wide a cell's text may run before it is cut (the whole table fits at 1440 px, issue 17). */
const cellWidth: Partial<Record<EditableField, string>> = { login: "max-w-[10rem]", displayName: "max-w-[11rem]" };

const shown = (user: ManagerRow, field: EditableField) => (field === "password" ? (user.password ? `${user.password}•••` : "") : user[field]);

/** SPEC /managers table: click a cell to edit it, the check icon saves; access key read-only. */
/** The row open for editing (JavaScript off, or the pencil): the edit link's target, so the page scrolls to it. */
const EDIT_ROW_ID = "manager-edit";

export function ManagersTable({ users, meId, editId, returnTo, hrefWith }: ManagersTableProps) {
  const hydrated = useHydrated();
  if (users.length === 0) {
    return <p className="card text-sm text-slate-600 dark:text-slate-400">Менеджеров пока нет</p>;
  }
  return (
    <TableFrame className="rounded-lg border border-slate-200 dark:border-slate-700">
      <table
        className="stack-table min-w-full divide-y divide-slate-200 bg-white text-sm dark:divide-slate-700 dark:bg-slate-800"
        data-testid="managers-table"
      >
        <thead className="bg-slate-50 text-left text-xs font-semibold uppercase text-slate-600 dark:bg-slate-900 dark:text-slate-300">
          <tr>
            {EDITABLE_FIELDS.slice(0, 4).map((f) => (
              <th key={f} className="px-2 py-2">
                {FIELD_LABELS[f]}
              </th>
            ))}
            <th className="px-2 py-2">Ключ доступа</th>
            {EDITABLE_FIELDS.slice(4).map((f) => (
              <th key={f} className="px-2 py-2">
                {FIELD_LABELS[f]}
              </th>
            ))}
            <th className="px-2 py-2">Админ</th>
            <th className="px-2 py-2">Действия</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-700">
          {users.map((user) =>
            editId === user.id ? (
              <EditRow key={user.id} user={user} returnTo={returnTo} cancelHref={returnTo} />
            ) : (
              <tr key={user.id} data-testid={`manager-row-${user.login}`}>
                {EDITABLE_FIELDS.slice(0, 4).map((f) => (
                  <EditableCell key={f} user={user} field={f} hydrated={hydrated} />
                ))}
                <td className="px-2 py-2 font-mono text-xs" data-label="Ключ доступа" data-testid="access-key">
                  {user.accessKey}
                </td>
                {EDITABLE_FIELDS.slice(4).map((f) => (
                  <EditableCell key={f} user={user} field={f} hydrated={hydrated} />
                ))}
                <td className="px-2 py-2" data-label="Админ">
                  <Link
                    to={hrefWith("confirm", `admin-${user.id}`)}
                    role="switch"
                    aria-checked={user.isAdmin}
                    aria-label={`Администратор: ${user.login}`}
                    data-testid="admin-toggle"
                    className={`inline-flex h-6 w-11 items-center rounded-full px-0.5 transition ${
                      user.isAdmin ? "justify-end bg-blue-600" : "justify-start bg-slate-300 dark:bg-slate-600"
                    }`}
                  >
                    <span className="h-5 w-5 rounded-full bg-white shadow" />
                  </Link>
                </td>
                <td className="px-2 py-2" data-label="Действия">
                  {/* Icons with their names (title, aria-label), as on /edit-statuses: the row fits at desk width. */}
                  <div className="flex gap-1">
                    <Link
                      to={`${hrefWith("edit", String(user.id))}#${EDIT_ROW_ID}`}
                      className={rowAction}
                      aria-label={`Изменить ${user.login}`}
                      title="Изменить"
                    >
                      <PencilIcon />
                    </Link>
                    {user.id === meId ? null : (
                      <Link
                        to={hrefWith("confirm", `delete-${user.id}`)}
                        className={`${rowAction} text-red-600 dark:text-red-400`}
                        aria-label={`Удалить ${user.login}`}
                        title="Удалить"
                        data-testid="delete-manager"
                      >
                        <TrashIcon />
                      </Link>
                    )}
                  </div>
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </TableFrame>
  );
}

/** One cell: its text, or (after a click, JavaScript on) an input and a check icon that saves that field. */
function EditableCell({ user, field, hydrated }: { user: ManagerRow; field: EditableField; hydrated: boolean }) {
  const [editing, setEditing] = useState(false);
  const fetcher = useFetcher<ManagersActionData>();

  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.ok) {
      notify("success", fetcher.data.message ?? "Изменения сохранены");
      setEditing(false);
    } else if (fetcher.data.error) {
      notify("error", fetcher.data.error.message);
    }
  }, [fetcher.state, fetcher.data]);

  const text = shown(user, field);
  if (!editing) {
    return (
      <td className="px-2 py-2" data-label={FIELD_LABELS[field]} data-testid={`cell-${field}`}>
        {hydrated ? (
          <button
            type="button"
            className={`block min-h-[1.5rem] min-w-[3rem] ${cellWidth[field] ?? "max-w-[8rem]"} truncate rounded px-1 text-left hover:bg-slate-100 dark:hover:bg-slate-700`}
            onClick={() => setEditing(true)}
            title={text ? `${text} — нажмите, чтобы изменить` : "Нажмите, чтобы изменить"}
          >
            {text || <span className="text-slate-600 dark:text-slate-400">—</span>}
          </button>
        ) : text ? (
          <OneLine text={text} className={cellWidth[field] ?? "max-w-[8rem]"} />
        ) : (
          <span className="text-slate-600 dark:text-slate-400">—</span>
        )}
      </td>
    );
  }
  return (
    <td className="px-2 py-2" data-label={FIELD_LABELS[field]} data-testid={`cell-${field}`}>
      {/* The buttons wrap under a name's wider field: the row grows in height, not past the desk width. */}
      <fetcher.Form method="post" className={`flex items-center gap-1 ${field === "displayName" ? "w-40 flex-wrap" : ""}`}>
        <input type="hidden" name="intent" value="update" />
        <input type="hidden" name="_js" value="1" />
        <input type="hidden" name="id" value={user.id} />
        <input type="hidden" name="field" value={field} />
        <input
          name="value"
          // A name is edited in a field as wide as the cell allows (issue 31: 96 px showed a third of it).
          className={`input min-w-0 px-2 py-1 ${field === "displayName" ? "w-full" : "w-24"}`}
          defaultValue={field === "password" ? "" : user[field]}
          placeholder={field === "password" ? "Новый пароль" : undefined}
          aria-label={FIELD_LABELS[field]}
          autoFocus
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
          }}
        />
        <button type="submit" className="btn-primary px-1.5 py-1" aria-label="Сохранить" title="Сохранить" disabled={fetcher.state !== "idle"}>
          <CheckIcon />
        </button>
        <button type="button" className="btn-secondary px-1.5 py-1" aria-label="Отмена" title="Отмена" onClick={() => setEditing(false)}>
          <CloseIcon />
        </button>
      </fetcher.Form>
    </td>
  );
}

/**
 * JavaScript off: the row opens into one wide cell holding the row's form (labelled fields in a grid, the check
 * icon saves, the cross cancels), so the buttons are on screen at any width (issue 17).
 */
function EditRow({ user, returnTo, cancelHref }: { user: ManagerRow; returnTo: string; cancelHref: string }) {
  return (
    // The page scrolls to it (its id is the edit link's #), under the sticky header: at 390 px the row being edited
    // was off screen (issue 41).
    <tr id={EDIT_ROW_ID} data-testid={`manager-row-${user.login}`} className="scroll-mt-16 bg-blue-50 dark:bg-slate-900">
      <td colSpan={EDITABLE_FIELDS.length + 3} className="px-2 py-3">
        <Form method="post" className="flex flex-wrap items-end gap-3">
          <input type="hidden" name="intent" value="updateRow" />
          <input type="hidden" name="id" value={user.id} />
          <input type="hidden" name="returnTo" value={returnTo} />
          <p className="w-full text-xs text-slate-600 dark:text-slate-400">
            ID {user.id} · ключ доступа <span className="font-mono">{user.accessKey}</span> · администратор: {user.isAdmin ? "да" : "нет"}
          </p>
          {EDITABLE_FIELDS.map((field) => (
            <label key={field} className="w-40">
              <span className="label">{FIELD_LABELS[field]}</span>
              <input
                name={field}
                className="input py-1"
                defaultValue={field === "password" ? "" : user[field]}
                placeholder={field === "password" ? `${user.password}••• (не менять)` : undefined}
                aria-label={FIELD_LABELS[field]}
              />
            </label>
          ))}
          <div className="flex gap-1">
            <button type="submit" className="btn-primary px-2 py-1.5" aria-label="Сохранить" title="Сохранить">
              <CheckIcon />
            </button>
            <a href={cancelHref} className="btn-secondary px-2 py-1.5" aria-label="Отмена" title="Отмена">
              <CloseIcon />
            </a>
          </div>
        </Form>
      </td>
    </tr>
  );
}
