// @ts-check
import { fill, h, timeEl } from './dom.js';
import { showValue } from './history.js';

/**
 * The facts panel at one instant: what Engram knew then (the `as_of` answer of the service), and the
 * timeline of every fact learned by then, each marked known, superseded or retracted at that instant.
 * Facts learned later are not shown: at that instant they did not exist yet.
 * @param {{ known: HTMLElement, timeline: HTMLElement }} els
 * @param {any[]} history every fact, active and inactive
 * @param {any[]} knownThen the facts active at the instant (from the service)
 * @param {number} at the instant, epoch milliseconds
 * @param {(fact: any) => string} subjectOf
 */
export function renderFacts(els, history, knownThen, at, subjectOf) {
  const known = new Set(knownThen.map((f) => f.fact_id));
  const supersededBy = new Map(history.filter((f) => f.supersedes_fact_id).map((f) => [f.supersedes_fact_id, f]));

  const line = (/** @type {any} */ f) => [h('span.subject', null, subjectOf(f)), ' · ', h('span.predicate', null, f.predicate), ' = ', h('strong.value', null, showValue(f.value))];

  fill(els.known, ...(knownThen.length === 0
    ? [h('li.empty', null, 'Nothing was known yet at this instant.')]
    : [...knownThen].sort((a, b) => subjectOf(a).localeCompare(subjectOf(b)) || a.predicate.localeCompare(b.predicate))
      .map((f) => h('li.known-fact', { dataset: { factId: f.fact_id, predicate: f.predicate, value: showValue(f.value) } }, ...line(f), ' ', h('span.since', null, 'since ', timeEl(f.observed_at))))));

  const learned = history.filter((f) => Date.parse(f.observed_at) <= at).sort((a, b) => Date.parse(a.observed_at) - Date.parse(b.observed_at));
  fill(els.timeline, ...(learned.length === 0
    ? [h('li.empty', null, 'No fact had been learned yet.')]
    : learned.map((f) => {
      const state = known.has(f.fact_id) ? 'known' : supersededBy.has(f.fact_id) ? 'superseded' : 'retracted';
      const chip = state === 'known'
        ? h('span.chip.chip-known', null, 'known')
        : h('span.chip.chip-old', null, `${state} `, f.invalid_from ? timeEl(f.invalid_from) : null);
      return h(`li.event.event-${state}`, { dataset: { factId: f.fact_id, state, predicate: f.predicate, value: showValue(f.value) } },
        h('span.dot', { 'aria-hidden': 'true' }),
        h('div', null, h('p.when', null, timeEl(f.observed_at)), h('p.what', null, ...line(f), ' ', chip)));
    })));
}
