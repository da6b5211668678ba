/**
 * The write-behind of the SQLite ServiceStore's open transaction (serviceStore.sqlite.ts): documents read or
 * written in it, with an undo log per savepoint.
 */

/** Documents the write-behind holds before it writes them all and forgets them. */
const BUFFER_MAX = 20_000;

/** A document as the open transaction knows it: its JSON (null: none) and whether SQLite has it yet. */
type DocEntry = { json: string | null; dirty: boolean };

/**
 * The open transaction's documents (read or written in it), keyed `collection \0 id`. Writes stay here
 * until flush() (before COMMIT, a find or a count); every change inside a savepoint is logged with the
 * write it replaced, so a rollback to the savepoint restores exactly what it was. An entry SQLite already
 * has (clean) can be forgotten at any time (it is read again), and is logged as nothing: after a rollback
 * SQLite has it again.
 */
export class DocBuffer {
  private readonly entries = new Map<string, DocEntry>();
  private readonly dirty = new Set<string>();
  private readonly undo: Array<Map<string, DocEntry | undefined>> = [];

  constructor(
    private readonly write: (writes: ReadonlyArray<readonly [key: string, json: string | null]>) => void,
  ) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string, load: () => string | null): string | null {
    const entry = this.entries.get(key);
    if (entry) return entry.json;
    const json = load();
    this.change(key, { json, dirty: false });
    this.bound();
    return json;
  }

  set(key: string, json: string | null): void {
    this.change(key, { json, dirty: true });
    this.bound();
  }

  /** Past BUFFER_MAX entries: everything written to SQLite and forgotten (the undo logs stay valid). */
  private bound(): void {
    if (this.entries.size <= BUFFER_MAX) return;
    this.flush();
    this.entries.clear();
  }

  flush(): void {
    if (this.dirty.size === 0) return;
    const writes = [...this.dirty].map((key) => [key, (this.entries.get(key) as DocEntry).json] as const);
    this.write(writes);
    for (const [key, json] of writes) this.change(key, { json, dirty: false });
  }

  savepoint(): void {
    this.undo.push(new Map());
  }

  release(): void {
    const log = this.undo.pop();
    const parent = this.undo[this.undo.length - 1];
    if (!log || !parent) return;
    for (const [key, before] of log) if (!parent.has(key)) parent.set(key, before);
  }

  rollbackTo(): void {
    const log = this.undo.pop();
    if (!log) return;
    for (const [key, before] of log) this.restore(key, before);
  }

  clear(): void {
    this.entries.clear();
    this.dirty.clear();
    this.undo.length = 0;
  }

  private change(key: string, next: DocEntry): void {
    const log = this.undo[this.undo.length - 1];
    if (log && !log.has(key)) {
      const before = this.entries.get(key);
      log.set(key, before?.dirty ? before : undefined);
    }
    this.restore(key, next);
  }

  private restore(key: string, entry: DocEntry | undefined): void {
    if (entry) this.entries.set(key, entry);
    else this.entries.delete(key);
    if (entry?.dirty) this.dirty.add(key);
    else this.dirty.delete(key);
  }
}
