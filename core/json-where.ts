// Where a value sits in a JSON text: the offset of the value at a path
// (object keys and array indexes), so a schema problem in a JSON file can be
// reported at its file:line:col rather than at the file alone. The text is
// taken to be valid JSON (JSON.parse read it); the scan stops, returning the
// deepest place it reached, at anything it does not expect.

const WHITESPACE = /[ \t\r\n]/;

class Scanner {
  constructor(
    private readonly text: string,
    public at = 0,
  ) {}

  skipSpace(): void {
    while (this.at < this.text.length && WHITESPACE.test(this.text[this.at])) this.at++;
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.at] ?? '';
  }

  /** A string starting at the current `"`: its decoded text, the scanner after it. */
  string(): string {
    const start = this.at;
    this.at++;
    while (this.at < this.text.length && this.text[this.at] !== '"') this.at += this.text[this.at] === '\\' ? 2 : 1;
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  /** Past the value at the current place, whatever it is. */
  skipValue(): void {
    const c = this.peek();
    if (c === '"') return void this.string();
    if (c !== '{' && c !== '[') {
      while (this.at < this.text.length && !/[,\]}\s]/.test(this.text[this.at])) this.at++;
      return;
    }
    let depth = 0;
    while (this.at < this.text.length) {
      const ch = this.text[this.at];
      if (ch === '"') {
        this.string();
        continue;
      }
      this.at++;
      if (ch === '{' || ch === '[') depth++;
      else if ((ch === '}' || ch === ']') && --depth === 0) return;
    }
  }

  /** Into the member `key` of the object (or item `key` of the array) here; false when it has none. */
  enter(key: PropertyKey): boolean {
    const open = this.peek();
    if (open !== '{' && open !== '[') return false;
    const close = open === '{' ? '}' : ']';
    this.at++;
    for (let index = 0; ; index++) {
      if (this.peek() === close) return false;
      if (open === '{') {
        if (this.peek() !== '"') return false;
        const name = this.string();
        if (this.peek() !== ':') return false;
        this.at++;
        if (name === String(key)) return this.peek() !== '';
      } else if (index === Number(key)) {
        return this.peek() !== '';
      }
      this.skipValue();
      if (this.peek() !== ',') return false;
      this.at++;
    }
  }
}

/**
 * The offset of the value at `path` in `text`; where a part of the path is missing
 * (a key the schema wants and the file lacks), the offset of the deepest value found.
 */
export function jsonValueOffset(text: string, path: readonly PropertyKey[]): number {
  const scanner = new Scanner(text);
  scanner.skipSpace();
  let found = scanner.at;
  for (const key of path) {
    if (!scanner.enter(key)) return found;
    found = scanner.at;
  }
  return found;
}
