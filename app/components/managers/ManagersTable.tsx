import { Form, Link, useFetcher } from "@remix-run/react";
import { useEffect, useState, type MouseEvent } from "react";
import { notify } from "../ui/Toasts";
import { useHydrated } from "./Pagination";
import { EDITABLE_FIELDS, FIELD_LABELS, type EditableField, type ManagerRow, type ManagersActionData } from "./types";

interface ManagersTableProps {
  users: ManagerRow[];
  meId: number;
  /** JavaScript off: the row being edited as one form (?edit=id). */
  editId: number | null;
  /** Where the no-JS forms return to (the current page and size). */
  returnTo: string;
  /** Link that keeps page and size and sets one more parameter. */
  hrefWith(name: string, value: string): string;
  onAskAdmin(user: ManagerRow): void;
  onAskDelete(user: ManagerRow): void;
}

const shown = (user: ManagerRow, field: EditableField) =>
  field === "password" ? (user.password ? `${user.password}•••` : "") : user[field];

/** SPEC /managers table: click a cell to edit it, the check icon saves; access key read-only. */
export function ManagersTable({ users, meId, editId, returnTo, hrefWith, onAskAdmin, onAskDelete }: ManagersTableProps) {
  const hydrated = useHydrated();
  if (users.length === 0) {
    return <p className="card text-sm text-slate-600 dark:text-slate-400">Менеджеров пока нет</p>;
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700">
      <table className="min-w-full divide-y divide-slate-200 bg-white text-sm dark:divide-slate-700 dark:bg-slate-800" data-testid="managers-table">
        <thead className="bg-slate-50 text-left text-xs font-semibold uppercase text-slate-600 dark:bg-slate-900 dark:text-slate-300">
          <tr>
            <th className="px-3 py-2">ID</th>
            {EDITABLE_FIELDS.slice(0, 4).map((f) => (
              <th key={f} className="px-3 py-2">
                {FIELD_LABELS[f]}
              </th>
            ))}
            <th className="px-3 py-2">Ключ доступа</th>
            {EDITABLE_FIELDS.slice(4).map((f) => (
              <th key={f} className="px-3 py-2">
                {FIELD_LABELS[f]}
              </th>
            ))}
            <th className="px-3 py-2">Админ</th>
            <th className="px-3 py-2">Действия</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-700">
          {users.map((user) =>
            editId === user.id ? (
              <EditRow key={user.id} user={user} returnTo={returnTo} cancelHref={returnTo} />
            ) : (
              <tr key={user.id} data-testid={`manager-row-${user.login}`}>
                <td className="px-3 py-2 text-slate-600 dark:text-slate-400">{user.id}</td>
                {EDITABLE_FIELDS.slice(0, 4).map((f) => (
                  <EditableCell key={f} user={user} field={f} hydrated={hydrated} />
                ))}
                <td className="px-3 py-2 font-mono" data-testid="access-key">
                  {user.accessKey}
                </td>
                {EDITABLE_FIELDS.slice(4).map((f) => (
                  <EditableCell key={f} user={user} field={f} hydrated={hydrated} />
                ))}
                <td className="px-3 py-2">
                  <Link
                    to={hrefWith("confirm", `admin-${user.id}`)}
                    role="switch"
                    aria-checked={user.isAdmin}
                    aria-label={`Администратор: ${user.login}`}
                    data-testid="admin-toggle"
                    className={`inline-flex h-6 w-11 items-center rounded-full px-0.5 transition ${
                      user.isAdmin ? "justify-end bg-blue-600" : "justify-start bg-slate-300 dark:bg-slate-600"
                    }`}
                    onClick={(event: MouseEvent) => {
                      event.preventDefault();
                      onAskAdmin(user);
                    }}
                  >
                    <span className="h-5 w-5 rounded-full bg-white shadow" />
                  </Link>
                </td>
                <td className="whitespace-nowrap px-3 py-2">
                  <Link to={hrefWith("edit", String(user.id))} className="mr-3 text-blue-600 hover:underline dark:text-blue-400">
                    Изменить
                  </Link>
                  {user.id === meId ? null : (
                    <Link
                      to={hrefWith("confirm", `delete-${user.id}`)}
                      className="text-red-600 hover:underline dark:text-red-400"
                      data-testid="delete-manager"
                      onClick={(event: MouseEvent) => {
                        event.preventDefault();
                        onAskDelete(user);
                      }}
                    >
                      Удалить
                    </Link>
                  )}
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </div>
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
      <td className="px-3 py-2" data-testid={`cell-${field}`}>
        {hydrated ? (
          <button
            type="button"
            className="min-h-[1.5rem] min-w-[3rem] rounded px-1 text-left hover:bg-slate-100 dark:hover:bg-slate-700"
            onClick={() => setEditing(true)}
            title="Нажмите, чтобы изменить"
          >
            {text || <span className="text-slate-600 dark:text-slate-400">—</span>}
          </button>
        ) : (
          text || <span className="text-slate-600 dark:text-slate-400">—</span>
        )}
      </td>
    );
  }
  return (
    <td className="px-3 py-2" data-testid={`cell-${field}`}>
      <fetcher.Form method="post" className="flex items-center gap-1">
        <input type="hidden" name="intent" value="update" />
        <input type="hidden" name="_js" value="1" />
        <input type="hidden" name="id" value={user.id} />
        <input type="hidden" name="field" value={field} />
        <input
          name="value"
          className="input min-w-[8rem] py-1"
          defaultValue={field === "password" ? "" : user[field]}
          placeholder={field === "password" ? "Новый пароль" : undefined}
          aria-label={FIELD_LABELS[field]}
          autoFocus
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
          }}
        />
        <button type="submit" className="btn-primary px-2 py-1" aria-label="Сохранить" title="Сохранить" disabled={fetcher.state !== "idle"}>
          ✓
        </button>
        <button type="button" className="btn-secondary px-2 py-1" aria-label="Отмена" title="Отмена" onClick={() => setEditing(false)}>
          ✕
        </button>
      </fetcher.Form>
    </td>
  );
}

/** JavaScript off: the whole row as one form (inputs tied to it by the form attribute); the check icon saves. */
function EditRow({ user, returnTo, cancelHref }: { user: ManagerRow; returnTo: string; cancelHref: string }) {
  const formId = `edit-row-${user.id}`;
  const cell = (field: EditableField) => (
    <td key={field} className="px-3 py-2">
      <input
        form={formId}
        name={field}
        className="input min-w-[8rem] py-1"
        defaultValue={field === "password" ? "" : user[field]}
        placeholder={field === "password" ? `${user.password}••• (не менять)` : undefined}
        aria-label={FIELD_LABELS[field]}
      />
    </td>
  );
  return (
    <tr data-testid={`manager-row-${user.login}`} className="bg-blue-50 dark:bg-slate-900">
      <td className="px-3 py-2 text-slate-600 dark:text-slate-400">{user.id}</td>
      {EDITABLE_FIELDS.slice(0, 4).map(cell)}
      <td className="px-3 py-2 font-mono">{user.accessKey}</td>
      {EDITABLE_FIELDS.slice(4).map(cell)}
      <td className="px-3 py-2">{user.isAdmin ? "Да" : "Нет"}</td>
      <td className="whitespace-nowrap px-3 py-2">
        <Form id={formId} method="post" className="inline-flex gap-1">
          <input type="hidden" name="intent" value="updateRow" />
          <input type="hidden" name="id" value={user.id} />
          <input type="hidden" name="returnTo" value={returnTo} />
          <button type="submit" className="btn-primary px-2 py-1" aria-label="Сохранить" title="Сохранить">
            ✓
          </button>
          <a href={cancelHref} className="btn-secondary px-2 py-1" aria-label="Отмена" title="Отмена">
            ✕
          </a>
        </Form>
      </td>
    </tr>
  );
}
