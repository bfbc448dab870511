import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { actorOf, readSessionToken, requireAdminUser } from "../auth.server";
import { AddManagerForm, AddManagerSchema, CREATE_FAILED, SipButtonSchema } from "../components/managers/AddManagerForm";
import { ManagersTable } from "../components/managers/ManagersTable";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { Pager, readPaging } from "../components/ui/Pager";
import { idFields, idSchema } from "../../common/validation";
import { ADD_FORM, EDITABLE_FIELDS, type EditableField, type ManagerRow, type ManagersActionData } from "../components/managers/types";
import { ServerMessage } from "../components/ui/Toasts";
import { formIntent, formReply, readFields, readFormBody, sentWithJs, submitForm, unknownIntent } from "../forms.server";
import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod";
import {
  deleteUser,
  generateAccessKey,
  generatePassword,
  generateSipAccount,
  isAppError,
  listUsers,
  registerManager,
  updateUser,
} from "../managers.server";
import { localPathField } from "../redirects.server";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Менеджеры" }];

/** SPEC §9: managers page sizes 5, 10, 50. */
const PAGE_SIZES = [5, 10, 50] as const;
const DEFAULT_PAGE_SIZE = 10;

type Confirm = { kind: "admin" | "delete"; user: ManagerRow };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const me = await requireAdminUser(request, context);
  const url = new URL(request.url);
  // Newest first: a manager just added is at the top of the first page.
  const all = (await listUsers(context.deps.db, actorOf(me))).reverse();
  const { size, page, pages } = readPaging(url, PAGE_SIZES, DEFAULT_PAGE_SIZE, all.length);
  const users: ManagerRow[] = all.slice((page - 1) * size, page * size);

  // JavaScript off: ?edit=id shows that row as a form. ?confirm=admin-id / delete-id asks before acting (a dialog with
  // JavaScript, a section without).
  const editId = Number(url.searchParams.get("edit")) || null;
  const confirmMatch = /^(admin|delete)-(\d+)$/.exec(url.searchParams.get("confirm") ?? "");
  const confirmUser = confirmMatch ? all.find((u) => u.id === Number(confirmMatch[2])) : undefined;
  const confirm: Confirm | null = confirmMatch && confirmUser ? { kind: confirmMatch[1] as Confirm["kind"], user: confirmUser } : null;
  return { users, total: all.length, page, pages, size, meId: me.id, editId, confirm };
}

/** A table editor's text as sent: "" clears a field, a field not sent changes nothing (a part that is not text reads as ""). */
const sentText = z.string().optional().catch("");

/** The table's forms (JavaScript on: a cell's; off: the row's), the switch's and the delete's: ids core parses again. */
const cellForm = z.object({
  field: z.enum(EDITABLE_FIELDS, { error: "Это поле нельзя изменить" }),
  id: idSchema,
  value: sentText,
});
const rowForm = z.object({
  id: idSchema,
  ...(Object.fromEntries(EDITABLE_FIELDS.map((field) => [field, sentText])) as Record<EditableField, typeof sentText>),
});
const adminForm = z.object({
  id: idSchema,
  isAdmin: z
    .string()
    .optional()
    .catch("")
    .transform((v) => v === "true"),
});

/**
 * The add form again after a generator's button without JavaScript: what was typed, with what was generated in
 * its place, and no errors (nothing was saved, nothing was checked yet).
 */
function addFormAgain(form: FormData, generated: Record<string, string>) {
  for (const [name, value] of Object.entries(generated)) form.set(name, value);
  return formReply(ADD_FORM, parseWithZod(form, { schema: z.object({}) }), undefined, 200);
}

/** The page and size to come back to (never another site, never a one-shot parameter). */
function backTo(request: Request, form: FormData) {
  // Built here, not at the top: redirects.server is empty in the browser bundle, which runs the module's top level.
  const { returnTo: asked } = readFields(form, z.object({ returnTo: localPathField("") }));
  if (asked.startsWith("/managers")) return asked;
  const url = new URL(request.url);
  const params = new URLSearchParams();
  for (const key of ["size", "page"]) {
    const value = url.searchParams.get(key);
    if (value) params.set(key, value);
  }
  const query = params.toString();
  return query ? `/managers?${query}` : "/managers";
}

export async function action({ request, context }: ActionFunctionArgs) {
  const me = await requireAdminUser(request, context);
  // With the session: an admin who changes his own password keeps this one (the others end).
  const actor = actorOf(me, await readSessionToken(request, context));
  const { db, sessions, passwords, hub, telephony } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form) || "create";
  const js = sentWithJs(form);
  const back = backTo(request, form);
  // JavaScript on: fetchers get data and toast it; off: a redirect with a flash message.
  const done = async (message: string, to = back) =>
    js ? data<ManagersActionData>({ intent, ok: true, message }) : redirectWithToast(to, { type: "success", message });

  try {
    switch (intent) {
      case "create":
        return await submitForm(
          form,
          { name: ADD_FORM, schema: AddManagerSchema, fieldOf: { login_taken: "login", sip_taken: "sipLogin" } },
          async (value) => {
            const created = await registerManager(db, passwords, actor, value);
            return done(`Менеджер ${created.login} создан`);
          },
        );
      // Without JavaScript the server generates (with it, the browser does, but for SIP).
      case "generatePassword":
        return addFormAgain(form, { password: generatePassword() });
      case "generateAccessKey":
        return addFormAgain(form, { accessKey: generateAccessKey() });
      case "generateSip":
        return await submitForm(form, { name: ADD_FORM, schema: SipButtonSchema }, async ({ login, sipPrefix }) => {
          const sip = await generateSipAccount(db, telephony, actor, { login, prefix: sipPrefix });
          return js ? data<ManagersActionData>({ intent, ok: true, sip }) : addFormAgain(form, sip);
        });
      case "update": {
        const { field, id, value } = readFields(form, cellForm, { keepEmpty: true });
        await updateUser(db, sessions, passwords, hub, actor, id, { [field]: value ?? "" });
        return await done("Изменения сохранены");
      }
      case "updateRow": {
        const { id, ...changes } = readFields(form, rowForm, { keepEmpty: true });
        if (!changes.password) delete changes.password; // empty: keep the password
        for (const field of EDITABLE_FIELDS) if (changes[field] === undefined) delete changes[field];
        await updateUser(db, sessions, passwords, hub, actor, id, changes);
        return await done("Изменения сохранены");
      }
      case "setAdmin": {
        const { id, isAdmin } = readFields(form, adminForm);
        const updated = await updateUser(db, sessions, passwords, hub, actor, id, { isAdmin });
        const message = isAdmin ? `${updated.login} теперь администратор` : `${updated.login} больше не администратор`;
        // Changing yourself: your session user changes at once; without the flag this page is closed to you.
        if (id === me.id && !isAdmin) return redirectWithToast("/leadpanel", { type: "success", message });
        return await done(message);
      }
      case "delete": {
        const { id } = readFields(form, idFields);
        await deleteUser(db, telephony, context.deps.hub, actor, id);
        return await done("Менеджер удалён");
      }
      default:
        throw unknownIntent();
    }
  } catch (error) {
    if (isAppError(error)) {
      return data<ManagersActionData>({ intent, error: { code: error.code, message: error.message } }, { status: error.status });
    }
    if (intent === "create") {
      console.error(error);
      return data<ManagersActionData>({ intent, error: { code: "internal", message: CREATE_FAILED } }, { status: 500 });
    }
    throw error;
  }
}

const ADD_FORM_INTENTS = new Set(["create", "generatePassword", "generateAccessKey", "generateSip"]);

export default function ManagersPage() {
  const { users, total, page, pages, size, meId, editId, confirm } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const query = (extra: Record<string, string> = {}) => {
    const params = new URLSearchParams();
    if (size !== DEFAULT_PAGE_SIZE) params.set("size", String(size));
    if (page > 1) params.set("page", String(page));
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    const s = params.toString();
    return s ? `/managers?${s}` : "/managers";
  };
  const returnTo = query();

  // The add form's answers are its own (its fields, or a failure of its intents); the rest are the table's.
  const answer = actionData && "intent" in actionData ? (actionData as ManagersActionData) : null;
  const addAnswer = actionData && (!answer || ADD_FORM_INTENTS.has(answer.intent)) ? actionData : null;
  const tableError = answer && !ADD_FORM_INTENTS.has(answer.intent) ? answer.error : undefined;

  return (
    <section>
      <h1 className="page-title">Менеджеры</h1>
      <AddManagerForm actionData={addAnswer} />
      {tableError ? <ServerMessage key={tableError.message} kind="error" message={tableError.message} /> : null}
      <ManagersTable users={users} meId={meId} editId={editId} returnTo={returnTo} hrefWith={(name, value) => query({ [name]: value })} />
      <Pager
        page={page}
        pages={pages}
        size={size}
        sizes={PAGE_SIZES}
        total={total}
        hrefFor={(p, s) => {
          const params = new URLSearchParams();
          if (s !== DEFAULT_PAGE_SIZE) params.set("size", String(s));
          if (p > 1) params.set("page", String(p));
          const q = params.toString();
          return q ? `/managers?${q}` : "/managers";
        }}
      />
      <ConfirmAction
        open={confirm !== null}
        title={confirm ? confirmTitle(confirm) : ""}
        closeHref={returnTo}
        intent={confirm?.kind === "admin" ? "setAdmin" : "delete"}
        fields={confirm ? { id: confirm.user.id, ...(confirm.kind === "admin" ? { isAdmin: String(!confirm.user.isAdmin) } : {}) } : {}}
        confirmLabel={confirm?.kind === "delete" ? "Удалить" : "Подтвердить"}
        danger={confirm?.kind === "delete"}
        testId="confirm-dialog"
      >
        {confirm ? confirmText(confirm, meId) : null}
      </ConfirmAction>
    </section>
  );
}

function confirmTitle({ kind, user }: Confirm) {
  if (kind === "delete") return `Удалить менеджера ${user.login}?`;
  return user.isAdmin ? `Снять права администратора с ${user.login}?` : `Сделать ${user.login} администратором?`;
}

function confirmText({ kind, user }: Confirm, meId: number) {
  if (kind === "delete") return "Менеджер и его SIP аккаунт будут удалены, открытые страницы менеджера закроются.";
  if (user.id === meId && user.isAdmin) return "Это ваша учётная запись: раздел управления сразу станет недоступен.";
  return user.isAdmin ? "Пользователь потеряет доступ к разделам управления." : "Пользователь получит доступ ко всем разделам управления.";
}
