import { NotFoundError, type Owner, type SearchHit } from '@engram-memory/sdk';

/** A search hit as the page shows it: Engram's hit with its document's title. */
export type Source = Pick<SearchHit, 'doc_id' | 'score' | 'passage' | 'modality'> & { title: string | null };

/**
 * Adds each hit's document title (search hits carry none), one lookup per distinct document, in parallel.
 * A document deleted between the search and the lookup keeps its hit, untitled.
 */
export async function withTitles(owner: Owner, hits: SearchHit[]): Promise<Source[]> {
  const ids = [...new Set(hits.map((hit) => hit.doc_id))];
  const titles = new Map(
    await Promise.all(
      ids.map(async (id) => {
        try {
          return [id, (await owner.documents.get(id)).title ?? null] as const;
        } catch (error) {
          if (error instanceof NotFoundError) return [id, null] as const;
          throw error;
        }
      }),
    ),
  );
  return hits.map((hit) => ({ doc_id: hit.doc_id, score: hit.score, passage: hit.passage, modality: hit.modality, title: titles.get(hit.doc_id) ?? null }));
}
