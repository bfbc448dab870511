import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigate, useSearchParams } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { ActiveSwitch } from "../components/links/ActiveSwitch";
import { LinkForm, LinkFormSchema } from "../components/links/LinkForm";
import { TEMPLATE_FORM, TemplateForm, TemplateFormSchema } from "../components/templates/TemplateForm";
import { ConfirmDelete } from "../components/ui/ConfirmAction";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { actionMessage, resultOf } from "../components/ui/forms";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { actionError } from "../errors.server";
import { idFields } from "../../common/validation";
import {
  baseColumnNames,
  createLink,
  createTemplate,
  deleteLink,
  deleteTemplate,
  listLinks,
  listTemplates,
  parseTemplateFields,
  toggleLinkActive,
  toggleTemplateActive,
  updateLink,
  updateTemplate,
} from "../templates.server";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Настройка шаблона" }];

const PAGE = "/leadTemplate";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const [templates, links, columns] = await Promise.all([
    listTemplates(context.deps.db, actor),
    listLinks(context.deps.db, actor),
    baseColumnNames(context.deps.db, actor),
  ]);
  return {
    columns,
    templates: templates.map((template) => ({ ...template, fields: parseTemplateFields(template.templateFields) })),
    links,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  // A card's buttons (delete, the switch) name their row; a hand-edited id is refused like a failed change.
  const id = () => readFields(form, idFields).id;

  switch (intent) {
    case "template-save":
      // A field button without JavaScript (Новое поле, a lock, a delete) answers the changed form, nothing saved.
      return submitForm(form, { name: TEMPLATE_FORM, schema: TemplateFormSchema }, async ({ id: templateId, name, fields }) => {
        const input = { name, templateFields: fields.map(({ label, type, column }) => ({ label, type, column })) };
        if (templateId) await updateTemplate(db, actor, templateId, input);
        else await createTemplate(db, actor, input);
        return redirectWithToast(PAGE, { type: "success", message: "Шаблон сохранен" });
      });
    case "template-delete":
      return afterChange(() => deleteTemplate(db, actor, id()), "Ошибка удаления шаблона", "Шаблон удален");
    case "template-activate":
      return afterChange(() => toggleTemplateActive(db, actor, id()), "Error activating template");
    case "link-save": {
      return submitForm(form, { name: "link", schema: LinkFormSchema }, async ({ id: linkId, ...values }) => {
        if (linkId) await updateLink(db, actor, linkId, values);
        else await createLink(db, actor, values);
        return redirectWithToast(PAGE, { type: "success", message: "Ссылка сохранена" });
      });
    }
    case "link-delete":
      return afterChange(() => deleteLink(db, actor, id()), "Ошибка удаления ссылки", "Ссылка удалена");
    case "link-activate":
      return afterChange(() => toggleLinkActive(db, actor, id()), "Error activating link");
    default:
      return actionError(unknownIntent());
  }
}

/**
 * A delete or a switch: back to the page with SPEC's error toast when it fails, and with its success toast (a
 * switch has none: it shows its new state).
 */
async function afterChange(change: () => Promise<unknown>, failure: string, success?: string) {
  try {
    await change();
  } catch {
    return redirectWithToast(PAGE, { type: "error", message: failure });
  }
  return success ? redirectWithToast(PAGE, { type: "success", message: success }) : redirect(PAGE);
}

const cardButton = "btn-secondary px-2 py-1";

export default function LeadTemplatePage() {
  const { templates, links, columns } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const templateParam = params.get("template");
  const linkParam = params.get("link");
  const deletingLink = links.find((link) => String(link.id) === params.get("deleteLink"));
  const deletingTemplate = templates.find((template) => String(template.id) === params.get("deleteTemplate"));
  const editedTemplate = templates.find((template) => String(template.id) === templateParam);
  const templateOpen = templateParam === "new" || Boolean(editedTemplate);
  const error = actionMessage(actionData);
  const linkResult = resultOf(actionData, "link");

  return (
    <div className="space-y-10">
      {error ? <ServerMessage key={answerKey} kind="error" message={error} /> : null}

      <section>
        <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
          <h1 className="page-title mb-0">Настройка шаблонов</h1>
          <Link to="?template=new" preventScrollReset className="btn-primary whitespace-nowrap">
            Добавить Шаблон
          </Link>
        </div>
        {templates.length === 0 ? (
          <p className="card text-sm text-slate-600 dark:text-slate-400">Шаблонов пока нет</p>
        ) : (
          <ul className="grid gap-3 md:grid-cols-2" data-testid="template-list">
            {templates.map((template) => (
              <li key={template.id} className="card space-y-3" data-testid="template-card">
                <div className="flex items-start justify-between gap-2">
                  <h2 className="min-w-0 font-semibold [overflow-wrap:anywhere]">{template.name}</h2>
                  <ActiveSwitch
                    id={template.id}
                    intent="template-activate"
                    isActive={template.isActive}
                    label={`Активность шаблона ${template.name}`}
                  />
                </div>
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  {template.fields.length
                    ? template.fields
                        .map(
                          (field) =>
                            `${field.label} (${field.type === "textarea" ? "TextArea" : "Text"}${field.column ? `, столбец «${field.column}»` : ""})`,
                        )
                        .join(", ")
                    : "Без полей"}
                </p>
                <div className="flex gap-2">
                  <Link to={`?template=${template.id}`} preventScrollReset className={cardButton} aria-label={`Изменить шаблон ${template.name}`}>
                    Изменить
                  </Link>
                  <Link
                    to={`?deleteTemplate=${template.id}`}
                    preventScrollReset
                    className="btn-danger px-2 py-1"
                    aria-label={`Удалить шаблон ${template.name}`}
                  >
                    Удалить
                  </Link>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <DialogOrSection
        open={templateOpen}
        title={editedTemplate ? "Редактирование шаблона" : "Новый шаблон"}
        onClose={() => navigate(PAGE, { preventScrollReset: true })}
        closeHref={PAGE}
        testId="template-dialog"
      >
        <TemplateForm
          key={templateParam}
          template={editedTemplate ?? null}
          columns={columns}
          cancelHref={PAGE}
          lastResult={resultOf(actionData, TEMPLATE_FORM)}
        />
      </DialogOrSection>

      <ConfirmDelete row={deletingTemplate} title="Удалить шаблон?" closeHref={PAGE} intent="template-delete" testId="delete-template">
        Шаблон «{deletingTemplate?.name}» будет удалён; тематики с ним останутся без шаблона карточки. Отменить это нельзя.
      </ConfirmDelete>

      <section>
        <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
          <h2 className="page-title mb-0">Настройка ссылок</h2>
          <Link to="?link=new" preventScrollReset className="btn-primary whitespace-nowrap">
            Добавить Ссылку
          </Link>
        </div>
        {linkParam === "new" ? (
          <div className="card mb-3">
            <LinkForm name="" link="" cancelHref={PAGE} lastResult={linkResult} />
          </div>
        ) : null}
        {links.length === 0 ? (
          <p className="card text-sm text-slate-600 dark:text-slate-400">Ссылок пока нет</p>
        ) : (
          <ul className="space-y-2" data-testid="link-list">
            {links.map((link) => (
              <li key={link.id} className="card" data-testid="link-card" data-link-id={link.id}>
                {linkParam === String(link.id) ? (
                  <LinkForm id={link.id} name={link.name} link={link.link} cancelHref={PAGE} lastResult={linkResult} />
                ) : (
                  <div className="flex flex-wrap items-center gap-3">
                    {/* At least 16rem for the name and address: on a phone the switch and buttons go under them. */}
                    <div className="min-w-0 flex-[1_1_16rem]">
                      <p className="font-medium [overflow-wrap:anywhere]">{link.name}</p>
                      <a
                        href={link.link}
                        target="_blank"
                        rel="noopener noreferrer"
                        className="break-all text-sm text-blue-600 hover:underline dark:text-blue-400"
                      >
                        {link.link}
                      </a>
                    </div>
                    <ActiveSwitch id={link.id} intent="link-activate" isActive={link.isActive} label={`Активность ссылки ${link.name}`} />
                    <Link to={`?link=${link.id}`} preventScrollReset className={cardButton} aria-label={`Изменить ссылку ${link.name}`}>
                      Изменить
                    </Link>
                    <Link
                      to={`?deleteLink=${link.id}`}
                      preventScrollReset
                      className="btn-danger px-2 py-1"
                      aria-label={`Удалить ссылку ${link.name}`}
                    >
                      Удалить
                    </Link>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <ConfirmDelete row={deletingLink} title="Удалить ссылку?" closeHref={PAGE} intent="link-delete" testId="delete-link">
        Ссылка «{deletingLink?.name}» будет удалена. Отменить это нельзя.
      </ConfirmDelete>
    </div>
  );
}
