// The reader re-reads the same sentences for every probe of a run; results that depend only
// on a text are kept here. Cleared when large, so memory stays bounded on big suites.
const MAX_ENTRIES = 50_000;

export class TextMemo<T> {
  private readonly entries = new Map<string, T>();

  get(key: string, make: () => T): T {
    let hit = this.entries.get(key);
    if (hit === undefined) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      hit = make();
      this.entries.set(key, hit);
    }
    return hit;
  }
}
