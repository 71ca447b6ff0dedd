import { describe, expect, it } from 'vitest';
import { collect, paginate, type PageInfo } from '../../../src/platform-api/pagination.js';
import { PaginationError } from '../../../src/platform-api/errors.js';

describe('paginate', () => {
  const pages: Record<string, { items: number[]; next?: string }> = {
    start: { items: [1, 2], next: 'b' },
    b: { items: [3, 4], next: 'c' },
    c: { items: [5] },
  };

  it('follows cursors until there is none, reporting each page', async () => {
    const asked: (string | undefined)[] = [];
    const info: PageInfo[] = [];
    const items = await collect(
      paginate({
        operation: 'op',
        fetchPage: async (cursor) => {
          asked.push(cursor);
          return pages[cursor ?? 'start']!;
        },
        itemsOf: (p) => p.items,
        nextCursor: (p) => p.next,
        onPage: (p) => info.push(p),
      }),
    );
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([undefined, 'b', 'c']);
    expect(info.map((i) => i.totalItems)).toEqual([2, 4, 5]);
  });

  it('fetches lazily: breaking early stops requests', async () => {
    let calls = 0;
    for await (const item of paginate({
      operation: 'op',
      fetchPage: async (cursor) => {
        calls++;
        return pages[cursor ?? 'start']!;
      },
      itemsOf: (p) => p.items,
      nextCursor: (p) => p.next,
    })) {
      if (item === 2) break;
    }
    expect(calls).toBe(1);
  });

  it('throws a PaginationError when a cursor comes back', async () => {
    await expect(
      collect(
        paginate({
          operation: 'op',
          fetchPage: async () => ({ items: [1] }),
          itemsOf: (p) => p.items,
          nextCursor: () => 'x',
        }),
      ),
    ).rejects.toBeInstanceOf(PaginationError);
  });
});
