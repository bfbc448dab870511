/** A row of the managers table (the management shape of a user, as the loader sends it). */
export interface ManagerRow {
  id: number;
  login: string;
  displayName: string;
  isAdmin: boolean;
  isOnline: boolean;
  password: string;
  telegram: string;
  accessKey: string;
  sipLogin: string;
  sipPassword: string;
  lastSeen: string | null;
}

/** The add form's fields, as it starts (AddManagerForm; JavaScript off gets back what was typed from the action). */
export interface AddFormValues {
  login: string;
  password: string;
  displayName: string;
  telegram: string;
  accessKey: string;
  sipPrefix: string;
  sipLogin: string;
  sipPassword: string;
}

export const EMPTY_ADD_FORM: AddFormValues = {
  login: "",
  password: "",
  displayName: "",
  telegram: "",
  accessKey: "",
  sipPrefix: "9000",
  sipLogin: "",
  sipPassword: "",
};

/** Cells an admin edits in place (the access key is read-only). */
export const EDITABLE_FIELDS = ["login", "displayName", "password", "telegram", "sipLogin", "sipPassword"] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

export const FIELD_LABELS: Record<EditableField, string> = {
  login: "Логин",
  displayName: "Имя",
  password: "Пароль",
  telegram: "Telegram",
  sipLogin: "SIP логин",
  sipPassword: "SIP пароль",
};

/** The add form's name in the action's answers (`formReply`, `resultOf`). */
export const ADD_FORM = "add";

/**
 * What the /managers action answers when it does not redirect, but the add form's own answers (`{ form, result }`):
 * a fetcher's success, a SIP account for the JavaScript form, or a refusal to show as a toast or banner.
 */
export interface ManagersActionData {
  intent: string;
  ok?: boolean;
  message?: string;
  error?: { code: string; message: string };
  sip?: { sipLogin: string; sipPassword: string };
}
