import { Modal, ModalClose } from "../ui/Modal";
// Loaded after the layout, and shares its modules: one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

/**
 * The lead panel's «Клавиши» dialog (issue 18): a chunk of its own, fetched once the panel is interactive and
 * drawn only while open (decision 090).
 */

/** What the «Клавиши» dialog lists, in this order. */
export const LEAD_PANEL_KEYS: Array<{ keys: string[]; what: string }> = [
  { keys: ["1", "…", "9"], what: "Нажать кнопку статуса с этой цифрой" },
  { keys: ["C"], what: "Позвонить клиенту, а во время звонка — завершить его (русская раскладка: С)" },
  { keys: ["S"], what: "Автонабор: не звонить этому клиенту по таймеру (русская раскладка: Ы)" },
  { keys: ["P"], what: "Автонабор: пауза и продолжение (русская раскладка: З)" },
  { keys: ["Enter"], what: "Подтвердить заявку; в окне перезвона — выбрать время, на котором стоит курсор" },
  { keys: ["Esc"], what: "Закрыть окно" },
  { keys: ["Enter", "или", "C"], what: "Входящий звонок: ответить (русская раскладка: С)" },
  { keys: ["Esc"], what: "Входящий звонок: отклонить" },
  { keys: ["?"], what: "Показать этот список" },
];

/** «Клавиши»: the list of the panel's keys (opened with «?» or its button). */
export function KeysDialog({ open, onOpenChange, autodial = false }: { open: boolean; onOpenChange: (open: boolean) => void; autodial?: boolean }) {
  // Autodial's keys are listed where the topic has autodial.
  const rows = LEAD_PANEL_KEYS.filter((row) => autodial || !row.what.startsWith("Автонабор"));
  return (
    <Modal
      open={open}
      onClose={() => onOpenChange(false)}
      title="Клавиши"
      description="Работают в любой раскладке, пока курсор не стоит в поле ввода."
      descriptionClassName="mb-3 text-sm text-slate-600 dark:text-slate-300"
      width="max-w-lg"
      testId="keys-dialog"
    >
      <table className="w-full text-sm">
        <tbody>
          {rows.map((row) => (
            <tr key={row.what} className="border-t border-slate-200 dark:border-slate-700">
              <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-normal">
                {row.keys.map((key, i) =>
                  key === "…" || key === "или" ? (
                    <span key={i} className="mx-0.5">
                      {key === "или" ? ` ${key} ` : key}
                    </span>
                  ) : (
                    <kbd
                      key={i}
                      className="inline-block rounded border border-slate-400 bg-slate-50 px-1.5 font-mono text-xs text-slate-900 dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100"
                    >
                      {key}
                    </kbd>
                  ),
                )}
              </th>
              <td className="py-1.5">{row.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-4 flex justify-end">
        <ModalClose />
      </div>
    </Modal>
  );
}
