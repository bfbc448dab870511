/**
 * A status's name short enough for a narrow column (issue 41 §14: /loadedbases at 1280 px cut «Не звонить» and
 * pushed «Действия» out of view). Each word longer than `longest` letters is abbreviated the Russian way: cut
 * before a vowel, after a consonant, with a full stop («Перезвонить» → «Перезв.»). Short words stay whole, so
 * «Недозвон», «Заявка» and «Не звонить» read as they are. The whole name goes in the title beside it.
 */
const VOWELS = new Set("аеёиоуыэюяaeiouy");
const NOT_LAST = new Set("ьъй");

function shortWord(word: string, longest: number, keep: number): string {
  if (word.length <= longest) return word;
  const lower = word.toLowerCase();
  for (let cut = keep; cut >= 3; cut -= 1) {
    const last = lower[cut - 1];
    if (!VOWELS.has(last) && !NOT_LAST.has(last) && /\p{L}/u.test(last) && VOWELS.has(lower[cut])) return `${word.slice(0, cut)}.`;
  }
  return `${word.slice(0, keep)}.`;
}

export function shortStatusLabel(label: string, { longest = 9, keep = 7 } = {}): string {
  return label
    .trim()
    .split(/\s+/)
    .map((word) => shortWord(word, longest, keep))
    .join(" ");
}
