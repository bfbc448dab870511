import { Form, Link } from "@remix-run/react";
import type { FormEvent } from "react";
import { notify } from "../ui/Toasts";

/** SPEC §5 link warnings (the server answers the same messages without JavaScript). */
export const LINK_NAME_REQUIRED = "Заполните имя ссылки";
export const LINK_URL_REQUIRED = "Заполните URL ссылки";

/** The inline link form of SPEC /leadTemplate: Имя ссылки, Ссылка на ресурс, Отмена, Сохранить. */
export function LinkForm({ id, name, link, cancelHref }: { id?: number; name: string; link: string; cancelHref: string }) {
  function check(event: FormEvent<HTMLFormElement>) {
    const form = new FormData(event.currentTarget);
    if (!String(form.get("name") ?? "").trim()) {
      event.preventDefault();
      notify("warning", LINK_NAME_REQUIRED);
    } else if (!String(form.get("link") ?? "").trim()) {
      event.preventDefault();
      notify("warning", LINK_URL_REQUIRED);
    }
  }
  return (
    <Form method="post" preventScrollReset onSubmit={check} className="flex flex-wrap items-center gap-2" data-testid="link-form">
      {id ? <input type="hidden" name="id" value={id} /> : null}
      <input name="name" className="input w-56" placeholder="Имя ссылки" defaultValue={name} aria-label="Имя ссылки" autoComplete="off" />
      <input name="link" className="input min-w-[16rem] flex-1" placeholder="Ссылка на ресурс" defaultValue={link} aria-label="Ссылка на ресурс" autoComplete="off" />
      <Link to={cancelHref} preventScrollReset className="btn-secondary">
        Отмена
      </Link>
      <button type="submit" name="intent" value="link-save" className="btn-primary">
        Сохранить
      </button>
    </Form>
  );
}
