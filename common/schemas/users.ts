// Run by the server (core's managers, the API's register and user bodies) and the browser (the /managers add form
// checks the same schema before anything is sent).
import * as z from "zod";
import { DEFAULT_SIP_PREFIX, SIP_PREFIXES } from "../credentials";

/** SPEC §5 New manager. */
export const FILL_ALL_FIELDS = "Пожалуйста, заполните все поля";
export const LOGIN_NEEDED_FOR_SIP = "Заполните логин, для генерации SIPa";
export const LOGIN_TAKEN = "Такой логин уже занят";
export const SIP_TAKEN = "Такой SIP логин уже занят";

const tooLong = (max: number) => `Слишком длинное значение (не более ${max} символов)`;
const required = (max: number) =>
  z
    .string({ error: FILL_ALL_FIELDS })
    .trim()
    .min(1, { error: FILL_ALL_FIELDS })
    .max(max, { error: tooLong(max) });
const optional = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: tooLong(max) })
    .nullish()
    .transform((v) => v ?? "");

const loginField = required(100).refine((v) => !/\s/.test(v), { error: "Логин не должен содержать пробелов" });
const passwordField = z
  .string({ error: FILL_ALL_FIELDS })
  .min(1, { error: FILL_ALL_FIELDS })
  .max(200, { error: tooLong(200) })
  .refine((v) => v.trim().length > 0, { error: FILL_ALL_FIELDS });
const accessKeyField = z
  .string()
  .trim()
  .max(100, { error: tooLong(100) })
  .refine((v) => !/\s/.test(v), { error: "Ключ доступа не должен содержать пробелов" })
  .nullish()
  .transform((v) => v ?? "");

/** POST /auth/register and the /managers add form. */
export const registerSchema = z.object({
  login: loginField,
  password: passwordField,
  displayName: required(100),
  accessKey: accessKeyField,
  telegram: optional(100),
  sipLogin: optional(50),
  sipPassword: optional(100),
});

/** PATCH /users/{id}: the admin flag, or edited fields. The access key is read-only. */
export const updateUserSchema = z
  .object({
    isAdmin: z.boolean({ error: "Неверное значение флага администратора" }).optional(),
    login: loginField.optional(),
    password: passwordField.optional(),
    displayName: required(100).optional(),
    telegram: optional(100).optional(),
    sipLogin: optional(50).optional(),
    sipPassword: optional(100).optional(),
    accessKey: z.unknown().optional(),
  })
  .refine((v) => v.accessKey === undefined, { error: "Ключ доступа нельзя изменить" })
  .refine((v) => Object.values(v).some((value) => value !== undefined), { error: "Нет изменений для сохранения" });

/** The add form's SIP button: a new account for this login, under the chosen number prefix. */
export const sipRequestSchema = z.object({
  login: z
    .string({ error: LOGIN_NEEDED_FOR_SIP })
    .trim()
    .min(1, { error: LOGIN_NEEDED_FOR_SIP })
    .max(100, { error: tooLong(100) }),
  prefix: z
    .number({ error: "Выберите префикс SIP номера" })
    .refine((v) => SIP_PREFIXES.includes(v), { error: "Выберите префикс SIP номера" })
    .default(DEFAULT_SIP_PREFIX),
});
