import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { linkSchema } from "../../../common/schemas/links";
import { idSchema } from "../../../common/validation";
import { CancelAndSave, FieldError, formProps, inputProps, unshownError, useSchemaForm } from "../ui/forms";
import { ServerMessage } from "../ui/Toasts";

/**
 * The link form's one schema (decision 063): core's link input (SPEC §5 «Заполните имя ссылки», «Заполните URL
 * ссылки», web addresses only) and the id of the link being edited. The /leadTemplate action parses the post with it.
 */
export const LinkFormSchema = linkSchema.pick({ name: true, link: true }).extend({ id: idSchema.optional() });

/** The inline link form of SPEC /leadTemplate: Имя ссылки, Ссылка на ресурс, Отмена, Сохранить. */
export function LinkForm({
  id,
  name,
  link,
  cancelHref,
  lastResult,
}: {
  id?: number;
  name: string;
  link: string;
  cancelHref: string;
  /** The action's answer to this form (field errors, what was typed), if it was just sent. */
  lastResult?: SubmissionResult<string[]> | null;
}) {
  const [form, fields] = useSchemaForm(LinkFormSchema, {
    id: `link-form-${id ?? "new"}`,
    lastResult,
    defaultValue: { id, name, link },
  });
  const unshown = unshownError(lastResult, ["name", "link"]);
  return (
    <Form method="post" preventScrollReset {...formProps(form)} className="space-y-2" data-testid="link-form">
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      <div className="flex flex-wrap items-start gap-2">
        {id ? <input type="hidden" name="id" value={id} /> : null}
        <div className="w-56">
          <input {...inputProps(fields.name)} className="input" placeholder="Имя ссылки" aria-label="Имя ссылки" autoComplete="off" />
          <FieldError field={fields.name} />
        </div>
        <div className="min-w-[16rem] flex-1">
          <input {...inputProps(fields.link)} className="input" placeholder="Ссылка на ресурс" aria-label="Ссылка на ресурс" autoComplete="off" />
          <FieldError field={fields.link} />
        </div>
        <CancelAndSave cancelHref={cancelHref} intent="link-save" />
      </div>
    </Form>
  );
}
