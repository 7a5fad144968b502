// Strings that keep no other string alive.

/**
 * A copy of `text` that shares no memory with a longer string. V8 keeps a
 * substring (slice, match, split, a digest's prefix) as a view of the string it
 * was cut from, so a short value stored for the rest of a run (a probe
 * record's answer, a context ref) would keep a whole transcript message or a
 * full digest alive beside it. JSON's round trip always builds a new string of
 * the same characters (lone surrogates included).
 */
export function flatCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
