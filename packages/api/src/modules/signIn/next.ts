/**
 * Where a sign-in may send the browser afterwards (§22): only a path of this origin — one leading
 * "/", not "//" or "/\" (both leave the origin in a browser), no scheme, no control characters —
 * else "/". Pure, so that no route of §22 can redirect off the origin through `next`.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2000) return "/";
  if (!next.startsWith("/")) return "/";
  const second = next[1];
  if (second === "/" || second === "\\") return "/";
  // Browsers drop tabs and newlines inside URLs ("/\t/evil" becomes "//evil").
  for (let i = 0; i < next.length; i++) {
    const code = next.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return "/";
  }
  // A backslash anywhere before the path ends is read as "/" by browsers; keep it out altogether.
  if (next.includes("\\")) return "/";
  try {
    const resolved = new URL(next, "http://origin.invalid");
    if (resolved.origin !== "http://origin.invalid") return "/";
  } catch {
    return "/";
  }
  return next;
}
