// Run by the server (the access log's core, its CSV) and the browser (the log's page): the kinds of access.

/**
 * What the access log holds (issue 39): a live listening, a whisper, a recording played, a recording downloaded,
 * and a recording fetched by the signed link a webhook's `recording.ready` carries (issue 44: no account behind it).
 */
export const ACCESS_KINDS = ["listen", "whisper", "play", "download", "link"] as const;
export type AccessKind = (typeof ACCESS_KINDS)[number];

/** What each kind is called on the page, in the menu of kinds and in the CSV. */
export const ACCESS_KIND_TEXT: Record<AccessKind, string> = {
  listen: "Прослушивание звонка",
  whisper: "Подсказка менеджеру",
  play: "Прослушивание записи",
  download: "Скачивание записи",
  link: "Скачивание по ссылке из вебхука",
};

/** Who stands in the log's «Кто» for an entry with no user: a link has none; else the user was deleted. */
export const accessWhoMissing = (kind: AccessKind) => (kind === "link" ? "интеграция (ссылка из вебхука)" : "удалённый пользователь");
