import { parseWithZod } from "@conform-to/zod/v4";
import { firstError } from "../lib/form-check";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { handleImportPost, mappingChoices, mappingHelp, type ImportState } from "../bases.server";
import { Banner, FILE_LABEL, fileRefusal, ImportProgress, ImportResultDialog, MappingTable } from "../components/bases/ImportParts";
import { useHydrated } from "../components/ui/DialogOrSection";
import { notify } from "../components/ui/Toasts";
import { previewPostSchema } from "../../common/schemas/imports";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Импорт базы" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdminUser(request, context);
  return { fields: mappingChoices(), help: mappingHelp() };
}

/** Without JavaScript: two posts, `preview` (multipart, with the file) then `import` (the chosen mapping). */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const { state, status } = await handleImportPost(request, context, actorOf(user));
  return data(state, { status });
}

/** What the progress bar shows: the upload's percent, then the processing (with the rows saved so far, if known). */
type Busy = { phase: "upload" | "processing"; percent: number; rows?: number } | null;

/** While a save is in flight: asks how many rows it has written, every 700 ms; stop it with the returned function. */
function followSave(uploadId: string, onRows: (rows: number) => void): () => void {
  const timer = setInterval(async () => {
    try {
      const res = await fetch(`/importbase/progress?uploadId=${encodeURIComponent(uploadId)}`, { headers: { Accept: "application/json" } });
      const body = res.ok ? ((await res.json()) as { rows?: unknown }) : null;
      if (typeof body?.rows === "number" && body.rows > 0) onRows(body.rows);
    } catch {
      // No count this time: the bar keeps pulsing.
    }
  }, 700);
  return () => clearInterval(timer);
}

/** With JavaScript: the same two posts through XHR to /importbase/upload, for the upload progress. */
function postWithProgress(form: FormData, onProgress: (busy: Busy) => void): Promise<ImportState> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/importbase/upload");
    xhr.responseType = "json";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress({ phase: "upload", percent: Math.round((event.loaded / event.total) * 100) });
    };
    xhr.upload.onload = () => onProgress({ phase: "processing", percent: 100 });
    xhr.onload = () => {
      if (xhr.response && typeof xhr.response === "object" && "step" in xhr.response) resolve(xhr.response as ImportState);
      else reject(new Error(`HTTP ${xhr.status}`));
    };
    xhr.onerror = () => reject(new Error("network"));
    xhr.send(form);
  });
}

export default function ImportBasePage() {
  const { fields, help } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const [state, setState] = useState<ImportState | null>(actionData ?? null);
  const [busy, setBusy] = useState<Busy>(null);
  const [showResult, setShowResult] = useState(true);
  const uploadForm = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (actionData) {
      setState(actionData);
      setShowResult(true);
    }
  }, [actionData]);

  const mapping = state?.step === "mapping" ? state : state?.step === "error" ? state.mapping : undefined;
  const submitting = navigation.state === "submitting" || busy !== null;

  async function viaXhr(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter);
    // The name by the server's own schema (common/schemas/imports.ts), before the file is sent.
    const problem = form.get("intent") === "sheet" ? null : firstError(parseWithZod(form, { schema: previewPostSchema }));
    if (problem) {
      notify("error", problem);
      setState({ step: "error", message: "Произошла ошибка при импорте базы данных", detail: problem, mapping });
      return;
    }
    if (form.get("intent") === "preview" && !(form.get("file") instanceof File && (form.get("file") as File).size > 0)) {
      notify("error", "Выберите файл для импорта");
      setState({ step: "error", message: "Произошла ошибка при импорте базы данных", detail: "Выберите файл для импорта" });
      return;
    }
    // A file the server would refuse is refused here, before a byte of it is sent (issue 31).
    const refusal = form.get("file") instanceof File ? await fileRefusal(form.get("file") as File) : null;
    if (refusal) {
      notify("error", refusal);
      setState({ step: "error", message: "Произошла ошибка при импорте базы данных", detail: refusal });
      return;
    }
    const intent = form.get("intent");
    setBusy(intent === "preview" ? { phase: "upload", percent: 0 } : { phase: "processing", percent: 100 });
    const stopFollowing =
      intent === "import"
        ? followSave(String(form.get("uploadId") ?? ""), (rows) => setBusy((now) => (now?.phase === "processing" ? { ...now, rows } : now)))
        : () => {};
    try {
      const next = await postWithProgress(form, setBusy);
      setState(next);
      setShowResult(true);
      // A success is said once, by the result dialog; a warning once, by its banner (issue 17).
      if (next.step === "done") uploadForm.current?.reset();
      else if (next.step === "error" && !next.warning) notify("error", `${next.message}: ${next.detail}`);
    } catch {
      notify("error", "Произошла ошибка при импорте базы данных");
      setState({ step: "error", message: "Произошла ошибка при импорте базы данных", detail: "Сервер не ответил: попробуйте ещё раз", mapping });
    } finally {
      stopFollowing();
      setBusy(null);
    }
  }

  const onSubmit = hydrated ? viaXhr : undefined;

  return (
    <section className="space-y-4">
      <h1 className="page-title">Импорт базы</h1>

      {/* First under the title: without JavaScript the result is a section of the page, seen without scrolling on a phone. */}
      {state?.step === "done" && showResult ? <ImportResultDialog result={state.result} onClose={() => setShowResult(false)} /> : null}

      {state?.step === "error" ? <Banner kind={state.warning ? "warning" : "error"} title={state.message} detail={state.detail} /> : null}

      <div className="card space-y-2 text-sm">
        <h2 className="text-base font-semibold">Как импортировать базу</h2>
        <ol className="list-decimal space-y-1 pl-5">
          <li>Введите название базы и выберите файл Excel (.xlsx или .xls), LibreOffice (.ods) или CSV (.csv, в UTF-8 или Windows-1251).</li>
          <li>Нажмите «Загрузить»: появится предпросмотр первых строк файла.</li>
          <li>
            Для каждого нужного столбца выберите тип: ФИО, номер, город, адрес, возраст, доп. поле 1–4 или часовой пояс. Столбец «Номер» нужен
            обязательно.
          </li>
          <li>Нажмите «Сохранить». Дубли удаляются по настройкам баз.</li>
        </ol>
        <p className="banner-warning" data-testid="import-warning">
          Внимание: контакты, у которых нет ни телефона, ни ФИО, не импортируются. Столбцы, для которых не выбран тип, не сохраняются.
        </p>
      </div>

      {/* After the preview only the mapping form is left (one «Название базы», issue 17); a link starts over. */}
      {mapping ? null : (
        <Form
          ref={uploadForm}
          method="post"
          encType="multipart/form-data"
          className="card space-y-3"
          onSubmit={onSubmit}
          noValidate
          data-testid="upload-form"
        >
          <input type="hidden" name="intent" value="preview" />
          <div>
            <label className="label" htmlFor="base-name">
              Название базы
            </label>
            <input id="base-name" name="name" className="input" defaultValue="" maxLength={200} />
          </div>
          <div>
            <label className="label" htmlFor="base-file">
              {FILE_LABEL}
            </label>
            <input
              id="base-file"
              name="file"
              type="file"
              accept=".xlsx,.xls,.ods,.csv,.tsv,.txt,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,application/vnd.ms-excel,application/vnd.oasis.opendocument.spreadsheet,text/csv,text/tab-separated-values"
              className="block text-sm"
            />
          </div>
          <button type="submit" className="btn-secondary" disabled={submitting}>
            Загрузить
          </button>
        </Form>
      )}

      {busy ? <ImportProgress phase={busy.phase} percent={busy.percent} rows={busy.rows} /> : null}

      {mapping?.preview.notice ? <Banner kind="warning" title={mapping.preview.notice} /> : null}
      {mapping?.preview.formulas ? <Banner kind="warning" title={mapping.preview.formulas} /> : null}

      {mapping && mapping.preview.sheets.length > 1 ? (
        <Form method="post" className="card flex flex-wrap items-end gap-3" onSubmit={onSubmit} data-testid="sheet-form">
          <input type="hidden" name="intent" value="sheet" />
          <input type="hidden" name="uploadId" value={mapping.uploadId} />
          <input type="hidden" name="fileName" value={mapping.fileName} />
          <input type="hidden" name="name" value={mapping.name} />
          <div className="min-w-[16rem]">
            <label className="label" htmlFor="sheet">
              Лист
            </label>
            {/* Keyed by the sheet shown: a new preview resets the choice. */}
            <select key={mapping.preview.sheet} id="sheet" name="sheet" className="input" defaultValue={String(mapping.preview.sheet)}>
              {mapping.preview.sheets.map((sheetName, i) => (
                <option key={i} value={String(i + 1)}>
                  {sheetName}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn-secondary" disabled={submitting}>
            Показать лист
          </button>
        </Form>
      ) : null}

      {mapping ? (
        // Keyed by the file and sheet: the column choices of another sheet start from its own suggestions.
        <Form
          key={`${mapping.uploadId}:${mapping.preview.sheet}`}
          method="post"
          className="card space-y-3"
          onSubmit={onSubmit}
          data-testid="mapping-form"
        >
          <input type="hidden" name="intent" value="import" />
          <input type="hidden" name="sheet" value={mapping.preview.sheet} />
          <input type="hidden" name="uploadId" value={mapping.uploadId} />
          <input type="hidden" name="fileName" value={mapping.fileName} />
          <div className="flex flex-wrap items-end gap-3">
            <div className="min-w-[16rem] flex-1">
              <label className="label" htmlFor="mapping-name">
                Название базы
              </label>
              <input id="mapping-name" name="name" className="input" defaultValue={mapping.name} maxLength={200} />
            </div>
            <p className="text-sm text-slate-600 dark:text-slate-400">
              Файл: {mapping.fileName}
              {mapping.preview.sheets.length > 1 ? `, лист «${mapping.preview.sheets[mapping.preview.sheet - 1]}»` : ""}
              {mapping.preview.hasHeader ? " (первая строка — заголовки, она не импортируется)" : ""}
            </p>
            <Link to="/importbase" reloadDocument className="btn-secondary">
              Загрузить другой файл
            </Link>
          </div>
          <MappingTable preview={mapping.preview} fields={fields} />
          <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="mapping-help">
            {help}
          </p>
          <button type="submit" className="btn-primary" disabled={submitting}>
            Сохранить
          </button>
        </Form>
      ) : null}
    </section>
  );
}
