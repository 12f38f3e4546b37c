// Text normalisation shared by the parsers and matchers (no I/O).

/** Lower case, accents removed, so "Müller" and "muller" compare equal. */
export function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase();
}

/** The words of a text (letters and digits), folded. */
export function wordsOf(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}
