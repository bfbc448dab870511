import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { ScriptContent } from "../components/scripts/ScriptViewer";
import { findReadableScript } from "../scripts.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction<typeof loader> = ({ data: loaded }) => [{ title: loaded?.script?.name ?? "Скрипт" }];

/**
 * The script viewer as a page (the sidebar opens it as a modal with JavaScript): any script for an admin,
 * for a manager only one that reaches him through a filter. The HTML is sanitised again here (core's present).
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const watermark = user.displayName || user.login;
  const script = await findReadableScript(context.deps.db, actorOf(user), params.id);
  return data({ script, watermark }, { status: script ? 200 : 404 });
}

export default function ScriptViewPage() {
  const { script, watermark } = useLoaderData<typeof loader>();
  if (!script) {
    return (
      <section>
        <h1 className="page-title">Скрипт не найден</h1>
        <Link to="/leadpanel" className="text-blue-600 dark:text-blue-400 hover:underline">
          К клиентам
        </Link>
      </section>
    );
  }
  return (
    <section>
      <h1 className="page-title">{script.name}</h1>
      <ScriptContent html={script.content} watermark={watermark} />
    </section>
  );
}
