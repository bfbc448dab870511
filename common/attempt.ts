/** One attempt of a contact under a retry rule of its topic (decision 057); pure, so the page can word it too. */
export interface LeadAttempt {
  number: number;
  of: number;
}

/** «Попытка 3 из 5»: the card and the client's history say it this way. */
export const attemptLabel = (attempt: LeadAttempt) => `Попытка ${attempt.number} из ${attempt.of}`;
