// @ts-check
/**
 * The owner's history as instants: every moment its memory changed (a node created, a fact or an edge
 * observed, a fact superseded or an edge retracted), oldest first. Pure functions over the records.
 */

/**
 * @typedef {{ memory_entity_id: string, entity_type: string, display_name?: string | null, created_at: string }} Entity
 * @typedef {{ relationship_id: string, from_entity_id: string, to_entity_id: string, relationship_type: string, observed_at: string, invalid_from: string | null }} Relationship
 * @typedef {{ fact_id: string, subject_type: string, subject_id: string | null, predicate: string, value: unknown, observed_at: string, invalid_from: string | null, supersedes_fact_id: string | null }} Fact
 * @typedef {{ at: string, what: string[] }} Moment
 */

/** @param {unknown} value */
export const showValue = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Names for the subjects of facts: nodes by display name, edges as "from → type → to", the owner as "owner".
 * @param {Entity[]} entities @param {Relationship[]} relationships
 */
export function namer(entities, relationships) {
  const nodes = new Map(entities.map((e) => [e.memory_entity_id, e.display_name || e.memory_entity_id]));
  const node = (/** @type {string} */ id) => nodes.get(id) ?? id;
  const edges = new Map(relationships.map((r) => [r.relationship_id, `${node(r.from_entity_id)} → ${r.relationship_type} → ${node(r.to_entity_id)}`]));
  return {
    node,
    edge: (/** @type {string} */ id) => edges.get(id) ?? id,
    /** @param {Fact} fact */
    subject: (fact) => (fact.subject_type === 'owner' || fact.subject_id === null ? 'owner' : fact.subject_type === 'entity' ? node(fact.subject_id) : edges.get(fact.subject_id) ?? fact.subject_id),
  };
}

/**
 * Every instant the memory changed, oldest first, each with what happened then.
 * @param {Entity[]} entities @param {Relationship[]} relationships @param {Fact[]} facts
 * @returns {Moment[]}
 */
export function moments(entities, relationships, facts) {
  const names = namer(entities, relationships);
  /** @type {Map<string, string[]>} */
  const byInstant = new Map();
  const add = (/** @type {string} */ at, /** @type {string} */ what) => byInstant.set(at, [...(byInstant.get(at) ?? []), what]);
  for (const e of entities) add(e.created_at, `node ${names.node(e.memory_entity_id)} (${e.entity_type}) created`);
  for (const r of relationships) {
    add(r.observed_at, `edge ${names.edge(r.relationship_id)} added`);
    if (r.invalid_from) add(r.invalid_from, `edge ${names.edge(r.relationship_id)} retracted`);
  }
  const superseded = new Set(facts.map((f) => f.supersedes_fact_id).filter(Boolean));
  for (const f of facts) {
    add(f.observed_at, `learned ${names.subject(f)} · ${f.predicate} = ${showValue(f.value)}`);
    if (f.invalid_from && !superseded.has(f.fact_id)) add(f.invalid_from, `fact ${names.subject(f)} · ${f.predicate} = ${showValue(f.value)} retracted`);
  }
  return [...byInstant.entries()].sort(([a], [b]) => Date.parse(a) - Date.parse(b)).map(([at, what]) => ({ at, what }));
}
