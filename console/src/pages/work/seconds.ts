// The memory forms' lifetimes (a store's default, an entry's own), read as a person types them.

/** A whole number of seconds as a person types it; null when empty, NaN when not one. */
export function secondsOf(text: string): number | null {
  const t = text.trim();
  if (!t) return null;
  return /^\d+$/.test(t) ? Number(t) : Number.NaN;
}
