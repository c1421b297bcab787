import { followCursors } from '../pagination.js';
import type { BodyOf, Fact, FactList, OwnerParams, RequestOptions, WriteOptions } from '../types.js';
import { type OwnerContext, seg } from './context.js';

/** Filters of the fact list, and the cursor of a page. */
export type FactListParams = OwnerParams<'listFacts'>;

/** The subject and predicate whose assertion chain `history` returns. */
export type FactHistoryParams = Required<Pick<FactListParams, 'subject_type' | 'predicate'>> & Pick<FactListParams, 'subject_id'>;

/** Temporal facts about the owner, its nodes and its edges. */
export class Facts {
  constructor(private readonly ctx: OwnerContext) {}

  /** Asserts a fact; a `single` fact supersedes the active one of the same subject and predicate. */
  assert(body: BodyOf<'assertFact'>, options?: WriteOptions): Promise<Fact> {
    return this.ctx.transport.json({ operationId: 'assertFact', method: 'POST', path: '/v1/memory/facts', query: this.ctx.query(), json: body, write: true, options });
  }

  /** One page of facts (active ones unless `include_inactive`, `as_of` or `history`), newest observed first. */
  list(params: FactListParams = {}, options?: RequestOptions): Promise<FactList> {
    return this.ctx.transport.json({ operationId: 'listFacts', method: 'GET', path: '/v1/memory/facts', query: this.ctx.query(params), options });
  }

  /** Every fact matching the filters, page after page (`for await`). */
  iterate(params: Omit<FactListParams, 'cursor'> = {}, options?: RequestOptions): AsyncGenerator<Fact, void, undefined> {
    return followCursors((cursor) => this.list({ ...params, cursor }, options), (page) => page.facts);
  }

  /** The whole assertion chain of one subject and predicate, oldest first (active and superseded). */
  async history(params: FactHistoryParams, options?: RequestOptions): Promise<Fact[]> {
    const chain: Fact[] = [];
    for await (const fact of this.iterate({ ...params, history: true }, options)) chain.push(fact);
    return chain;
  }

  /** Soft-retracts a fact (`invalid_from` set, history kept) and returns it. */
  retract(factId: string, options?: RequestOptions): Promise<Fact> {
    return this.ctx.transport.json({ operationId: 'retractFact', method: 'DELETE', path: `/v1/memory/facts/${seg(factId)}`, query: this.ctx.query(), options });
  }
}
