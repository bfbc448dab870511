// The lead panel's report question. The card's text and SPEC §5's report check
// are in common/client-card.ts (the press's action and core read them too).
export const REPORT_CONFIRM = "Вы точно хотите отправить заявку? Проверьте, что б все поля в шаблоне, были заполнены!";
