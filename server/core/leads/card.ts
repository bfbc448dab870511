import { extraFieldLabel } from "../bases/mapping";
import { displayPhone } from "../bases/phone";
import type { Lead } from "./allocation";

export interface LeadCardRow {
  key: keyof Lead;
  label: string;
  value: string;
}

/**
 * The client card's rows: the phone in one readable format (the stored original is what export and the call
 * use), the extra fields labelled with the column headers the admin mapped at import (Доп. поле N when there was
 * none), and empty fields left out; name and phone always show.
 */
export function leadCardRows(lead: Lead, extraLabels: string[], phoneRegion: string): LeadCardRow[] {
  const rows: LeadCardRow[] = [
    { key: "name", label: "Имя", value: lead.name },
    { key: "phone", label: "Телефон", value: displayPhone(lead.phone, phoneRegion) },
    { key: "city", label: "Город", value: lead.city },
    { key: "address", label: "Адрес", value: lead.address },
  ];
  ([1, 2, 3, 4] as const).forEach((n) => {
    const key = `additionalInfo${n}` as const;
    rows.push({ key, label: extraLabels[n - 1]?.trim() || extraFieldLabel(n), value: lead[key] });
  });
  return rows.filter((row) => row.key === "name" || row.key === "phone" || row.value.trim() !== "");
}
