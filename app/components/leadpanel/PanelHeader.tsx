import { Form, Link } from "@remix-run/react";

/** The panel's title, and with a topic: «Клавиши» (with JavaScript), the topic and «Сменить тематику». */
export function PanelHeader({
  topic,
  onKeys,
  acceptsInbound = null,
  canChange = true,
  isAdmin = false,
}: {
  topic: string | null;
  onKeys: (() => void) | null;
  /** «Принимать входящие» (issue 42): his switch, shown when he has a softphone (null: not shown). */
  acceptsInbound?: boolean | null;
  /**
   * Issue 41: a manager with one topic open to him is put in it by /getFilters itself; «Сменить тематику» would
   * bring him straight back, so with one topic the header says where another comes from instead.
   */
  canChange?: boolean;
  /** An admin gives topics himself: his line points to where (a manager's says who gives them). */
  isAdmin?: boolean;
}) {
  return (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
      <h1 className="page-title mb-0">Клиенты</h1>
      {topic !== null ? (
        <div className="flex flex-wrap items-center gap-3 text-sm">
          {onKeys ? (
            <button type="button" className="btn-secondary px-2 py-1 text-xs" aria-keyshortcuts="Shift+?" onClick={onKeys}>
              Клавиши
            </button>
          ) : null}
          {acceptsInbound !== null ? (
            <Form method="post" action="/inbound" data-testid="inbound-switch">
              <input type="hidden" name="accepts" value={acceptsInbound ? "0" : "1"} />
              <input type="hidden" name="redirectTo" value="/leadpanel" />
              <button type="submit" role="switch" aria-checked={acceptsInbound} className="btn-secondary px-2 py-1 text-xs">
                {`Принимать входящие: ${acceptsInbound ? "вкл." : "выкл."}`}
              </button>
            </Form>
          ) : null}
          <Form method="post" className="flex items-center gap-3">
            <span className="min-w-0 text-slate-600 dark:text-slate-400 [overflow-wrap:anywhere]">
              Тематика: <strong data-testid="current-topic">{topic}</strong>
            </span>
            {canChange ? (
              <button type="submit" name="intent" value="change-topic" className="btn-secondary px-2 py-1 text-xs">
                Сменить тематику
              </button>
            ) : (
              <span className="text-xs text-slate-600 dark:text-slate-400" data-testid="only-topic">
                {isAdmin ? (
                  <>
                    другой у вас нет: менеджеров тематик назначают в{" "}
                    <Link to="/loadedbases" className="underline">
                      «Мои базы»
                    </Link>
                  </>
                ) : (
                  "другой у вас нет: её даёт администратор"
                )}
              </span>
            )}
          </Form>
        </div>
      ) : null}
    </div>
  );
}
