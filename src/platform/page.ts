// A page of a listing as domain functions take it (the GraphQL connection's slice, schema/paging.ts, or a
// REST route's limit and offset), and the one way a list is read a page at a time.

export interface Page {
  offset: number;
  limit: number;
}

/** Newest first, ties broken by id so pages never overlap. */
const newestFirst = () => [{ createdAt: 'desc' as const }, { id: 'asc' as const }];

/** One page of a list, newest first, and the size of the whole list. */
export async function page<T>(
  page: Page,
  find: (q: { orderBy: ReturnType<typeof newestFirst>; skip: number; take: number }) => Promise<T[]>,
  count: () => Promise<number>,
) {
  const [items, total] = await Promise.all([find({ orderBy: newestFirst(), skip: page.offset, take: page.limit }), count()]);
  return { items, total };
}
