import { PaginationError } from './errors.js';

/**
 * One async iterator for every paging style of the platform. Each endpoint supplies how to fetch a page
 * for a cursor, which items a page holds, and the cursor of the next page (undefined = last page).
 */

export interface PageInfo {
  /** 1 for the first page. */
  page: number;
  pageItems: number;
  totalItems: number;
}

export interface PaginateOptions<Page, Item> {
  operation: string;
  fetchPage: (cursor: string | undefined) => Promise<Page>;
  itemsOf: (page: Page) => readonly Item[];
  nextCursor: (page: Page, items: readonly Item[]) => string | null | undefined;
  /** Called after each page, before its items are yielded (a progress counter, for instance). */
  onPage?: ((info: PageInfo) => void) | undefined;
}

export async function* paginate<Page, Item>(
  options: PaginateOptions<Page, Item>,
): AsyncGenerator<Item, void> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let total = 0;
  for (let page = 1; ; page++) {
    const body = await options.fetchPage(cursor);
    const items = options.itemsOf(body);
    total += items.length;
    options.onPage?.({ page, pageItems: items.length, totalItems: total });
    yield* items;
    const next = options.nextCursor(body, items);
    if (next === undefined || next === null || next === '') return;
    if (seen.has(next)) throw new PaginationError(options.operation, next);
    seen.add(next);
    cursor = next;
  }
}

/** Collects an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
