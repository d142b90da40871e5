import { redact, redactSecrets } from "./redact.js";

/** A plain object as JSON.parse and storage rows make them (not a Date, a Map, a class). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of `value` with every string in it, object keys included, passed through `clean`
 * (default redact()): a record the service sent, a row read from storage, a document about to
 * be sent. Arrays and
 * plain objects are copied; anything else (numbers, dates, bigints) is kept as it is.
 *
 * Walked with a stack of its own, not by recursion: a hostile upstream's JSON may nest
 * thousands deep, and an overflow would turn its answer into our crash.
 */
export function redactStrings<T>(value: T, clean: (text: string) => string = redact): T {
  let result: unknown;
  const work: { from: unknown; put: (copy: unknown) => void }[] = [
    {
      from: value,
      put: (copy) => {
        result = copy;
      },
    },
  ];
  for (let task = work.pop(); task !== undefined; task = work.pop()) {
    const { from, put } = task;
    if (typeof from === "string") {
      put(clean(from));
    } else if (Array.isArray(from)) {
      const copy: unknown[] = new Array(from.length);
      put(copy);
      from.forEach((item: unknown, i) => {
        work.push({
          from: item,
          put: (c) => {
            copy[i] = c;
          },
        });
      });
    } else if (isPlainObject(from)) {
      const copy: Record<string, unknown> =
        Object.getPrototypeOf(from) === null ? Object.create(null) : {};
      put(copy);
      for (const [key, item] of Object.entries(from)) {
        // Defined, not assigned: a key "__proto__" (JSON.parse makes it an own key) stays a key.
        const name = clean(key);
        work.push({
          from: item,
          put: (c) =>
            Object.defineProperty(copy, name, {
              value: c,
              enumerable: true,
              writable: true,
              configurable: true,
            }),
        });
      }
    } else {
      put(from);
    }
  }
  return result as T;
}

/**
 * redactStrings for records' data (the service's records as they enter, rows read back, the
 * dashboard's model): every secret held and every token by its shape, but not the word after
 * "Bearer", which in a certificate's name ("Bearer Token Service") is no token.
 */
export function redactRecordStrings<T>(value: T): T {
  return redactStrings(value, redactSecrets);
}
