/**
 * Ids the daemon remembers only to recognise them again (events seen, deliveries delivered, ladders
 * stopped): kept in the order they came, at most `maxCount` of them and at most `maxChars` characters in
 * all. Adding past either limit forgets the oldest first, so hostile ids of the longest allowed length
 * cannot grow the daemon beyond the character budget however many arrive.
 */
export class BoundedIds implements Iterable<string> {
  private readonly ids = new Set<string>();
  private chars = 0;

  constructor(
    readonly maxCount: number,
    readonly maxChars: number,
  ) {}

  get size(): number {
    return this.ids.size;
  }

  /** The characters of every id kept. */
  get totalChars(): number {
    return this.chars;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Adds an id at the newest end (an id already kept stays where it is), then trims to the limits. */
  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    this.chars += id.length;
    this.trim();
  }

  /** Moves an id to the newest end, adding it when missing. */
  touch(id: string): void {
    this.delete(id);
    this.add(id);
  }

  delete(id: string): boolean {
    if (!this.ids.delete(id)) return false;
    this.chars -= id.length;
    return true;
  }

  /** The oldest id, or undefined when empty. */
  oldest(): string | undefined {
    for (const id of this.ids) return id;
    return undefined;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.ids.values();
  }

  private trim(): void {
    while (this.ids.size > this.maxCount || (this.chars > this.maxChars && this.ids.size > 1))
      this.delete(this.oldest()!);
  }
}
