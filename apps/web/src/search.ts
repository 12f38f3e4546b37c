// Forgiving search over the clinic's service list, in the spirit of S7: accents and case do not
// matter, nor word order, and a word may have one typo.

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase();
const words = (text: string) =>
  fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/** Whether every word of `query` starts a word of `name`, or is one edit away from one. */
export function matches(name: string, query: string): boolean {
  const wanted = words(query);
  if (wanted.length === 0) return true;
  const have = words(name);
  return wanted.every((w) =>
    have.some(
      (h) =>
        h.startsWith(w) ||
        (w.length >= 4 && withinOneEdit(h.slice(0, w.length + 1), w)) ||
        (w.length >= 4 && withinOneEdit(h, w)),
    ),
  );
}
