// Run by the browser (the lead panel's callback form) and the server (core's check of a press).

/** The longest note a callback keeps (issue 41 §7: what to say when it is due). */
export const CALLBACK_NOTE_MAX = 500;
export const CALLBACK_NOTE_TOO_LONG = `Заметка к перезвону не длиннее ${CALLBACK_NOTE_MAX} символов`;
