// Run by the server (core's scoring, the API) and the browser (the scorecard editor, the scoring and dispute forms
// check the same schemas). Call scoring: issue 39, decision 073.
import * as z from "zod";
import { requiredText } from "../validation";

import { SCORE_ANSWERS, type ScoreAnswer, type ScoredCriterion } from "../score-answers";

export { ANSWER_TEXT, SCORE_ANSWERS, type ScoreAnswer, type ScoredCriterion } from "../score-answers";

export const MAX_CRITERIA = 30;

/** A criterion as the scorecard keeps it. */
export const criterionSchema = z.object({
  text: requiredText("Введите текст пункта", 300),
  weight: z
    .number({ error: "Вес пункта — целое число от 1 до 100" })
    .int({ error: "Вес пункта — целое число от 1 до 100" })
    .min(1, { error: "Вес пункта — целое число от 1 до 100" })
    .max(100, { error: "Вес пункта — целое число от 1 до 100" }),
  critical: z.boolean({ error: "Критичность пункта — да или нет" }).default(false),
});
export type Criterion = z.infer<typeof criterionSchema>;

export const criteriaListOf = <C extends z.ZodType>(criterion: C) =>
  z
    .array(criterion, { error: "Пункты оценочного листа должны быть списком" })
    .max(MAX_CRITERIA, { error: `Не более ${MAX_CRITERIA} пунктов в оценочном листе` });

/** A topic's whole scorecard (PUT replaces it); no criteria: the topic has no scorecard. */
export const scorecardSchema = z.object({ criteria: criteriaListOf(criterionSchema) });

const VALUE: Record<Exclude<ScoreAnswer, "na">, number> = { yes: 1, partly: 0.5, no: 0 };

/**
 * The score of a call, 0-100 (decision 073): a «нет» on a critical criterion makes it 0; otherwise
 * round(100 × Σ weight × value ÷ Σ weight) over the applicable criteria (value: да 1, частично 0.5, нет 0; «не
 * применимо» leaves the criterion out of both sums). Null when no criterion applies (such a call cannot be scored).
 */
export function scoreOf(answers: ReadonlyArray<Pick<ScoredCriterion, "weight" | "critical" | "answer">>): number | null {
  if (answers.some((a) => a.critical && a.answer === "no")) return 0;
  let weights = 0;
  let points = 0;
  for (const a of answers) {
    if (a.answer === "na") continue;
    weights += a.weight;
    points += a.weight * VALUE[a.answer];
  }
  return weights === 0 ? null : Math.round((100 * points) / weights);
}

export const answerSchema = z.enum(SCORE_ANSWERS, { error: "Выберите ответ: да, нет, частично или не применимо" });

/** Answers keyed by the criterion's id («answers.12»: a record, so the form's radio groups are named by it). */
export const answersSchema = z.record(z.string(), answerSchema, { error: "Ответы должны быть объектом «id пункта: ответ»" });

export const scoreCommentText = z
  .string({ error: "Комментарий должен быть текстом" })
  .trim()
  .max(2000, { error: "Комментарий не длиннее 2000 символов" });

/** A score given to a call: an answer for each criterion of its topic's scorecard, and an overall comment. */
export const scoreInputSchema = z.object({
  answers: answersSchema,
  comment: scoreCommentText.default(""),
});

/** m:ss (or h:mm:ss) of a moment in a recording, from seconds. */
export function formatMoment(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

const MOMENT_MESSAGE = "Укажите момент записи как мм:сс, например 1:05";

/** A moment of the recording as typed: «мм:сс» (or «ч:мм:сс»), to seconds. */
export const momentText = z.string({ error: MOMENT_MESSAGE }).transform((value, ctx) => {
  const match = /^\s*(?:(\d+):)?(\d{1,3}):([0-5]\d)\s*$/.exec(value);
  if (!match) {
    ctx.addIssue({ code: "custom", message: MOMENT_MESSAGE });
    return z.NEVER;
  }
  return Number(match[1] ?? 0) * 3600 + Number(match[2]) * 60 + Number(match[3]);
});

/** A moment of the recording: «мм:сс» from a form, or whole seconds from the API. */
export const momentSchema = z.union([z.number().int().min(0).max(86_400), momentText], { error: MOMENT_MESSAGE });

/** A comment pinned to a moment of the call. */
export const callCommentSchema = z.object({
  at: momentSchema,
  text: requiredText("Введите текст комментария", 2000),
});

/** The page's comment form: the moment as typed only (conform would read «90» as the number 90 for the union). */
export const commentFormSchema = callCommentSchema.extend({ at: momentText });

/** The manager's dispute of his score: what he disagrees with. */
export const disputeSchema = z.object({ comment: requiredText("Напишите, с чем вы не согласны", 2000) });

/** An admin's decision on a dispute: accept with new answers (a rescore), or reject with a reason. */
export const decisionSchema = z
  .object({
    decision: z.enum(["accept", "reject"], { error: "Решение: accept (пересмотреть) или reject (отклонить)" }),
    reason: scoreCommentText.default(""),
    answers: answersSchema.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.decision === "reject" && !value.reason) ctx.addIssue({ code: "custom", path: ["reason"], message: "Напишите причину отказа" });
    if (value.decision === "accept" && !value.answers)
      ctx.addIssue({ code: "custom", path: ["answers"], message: "Пересмотр требует новых ответов по пунктам" });
  });

/**
 * The scoring form of one scorecard (these criterion ids): every criterion answered, its own message under it. The
 * page builds it from the loader's criteria and the action from the same call's, so both check alike.
 */
export const scoreFormSchema = (criterionIds: number[]) =>
  z.object({
    answers: z.object(
      Object.fromEntries(criterionIds.map((id) => [String(id), z.enum(SCORE_ANSWERS, { error: "Выберите ответ по этому пункту" })])),
      { error: "Ответьте на пункты оценочного листа" },
    ),
    comment: scoreCommentText.default(""),
  });

/** An admin's rejection of a dispute: the reason is required. */
export const rejectFormSchema = z.object({ reason: requiredText("Напишите причину отказа", 2000) });

/** An admin's rescore of a disputed call: new answers to the criteria it was scored on, and why (optional). */
export const rescoreFormSchema = (criterionIds: number[]) =>
  scoreFormSchema(criterionIds)
    .omit({ comment: true })
    .extend({ reason: scoreCommentText.default("") });
