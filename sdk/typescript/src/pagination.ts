/** A page of a memory list: its records and the cursor of the next page (null or absent on the last). */
export interface CursorPage {
  next_cursor?: string | null;
}

/**
 * Yields the records of every page, passing each page's `next_cursor` back as `cursor` until it is
 * null. Pages are fetched lazily: breaking out of `for await` stops fetching.
 */
export async function* followCursors<Page extends CursorPage, Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => readonly Item[],
): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* itemsOf(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/**
 * Yields the items of offset-paged results: `offset` grows by what each page held, and paging stops
 * when `hasMore` says so (or a page comes back empty, which guards against a loop on a changed set).
 */
export async function* followOffsets<Page, Item>(
  start: number,
  fetchPage: (offset: number) => Promise<Page>,
  itemsOf: (page: Page) => readonly Item[],
  hasMore: (page: Page, items: readonly Item[]) => boolean,
): AsyncGenerator<Item, void, undefined> {
  let offset = start;
  for (;;) {
    const page = await fetchPage(offset);
    const items = itemsOf(page);
    yield* items;
    if (items.length === 0 || !hasMore(page, items)) return;
    offset += items.length;
  }
}
