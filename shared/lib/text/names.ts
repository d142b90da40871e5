/** Names shown in one line; the rest are counted. */
const SHOWN_NAMES = 3;
/** Longest name shown whole, in characters: a name may be thousands long (the service allows it). */
const SHOWN_NAME_CHARS = 200;

/** A name as a line shows it: whole, or its head and its length when it is very long. */
export function shownName(name: string): string {
  if (name.length <= SHOWN_NAME_CHARS) return name;
  // Never half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(name.charAt(SHOWN_NAME_CHARS - 1))
    ? SHOWN_NAME_CHARS - 1
    : SHOWN_NAME_CHARS;
  return `${name.slice(0, end)}… (${name.length} characters)`;
}

/** "a, b, c and 2 more": the first few names, and how many others. */
export function someNames(names: readonly string[]): string {
  const shown = names.slice(0, SHOWN_NAMES).map(shownName).join(", ");
  return names.length > SHOWN_NAMES ? `${shown} and ${names.length - SHOWN_NAMES} more` : shown;
}
