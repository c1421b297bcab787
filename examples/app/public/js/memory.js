// @ts-check
import { api, qs } from './api.js';
import { byId, fill, h, timeEl, when } from './dom.js';
import { renderFacts } from './facts-view.js';
import { createGraphView } from './graph-view.js';
import { moments, namer, showValue } from './history.js';

const els = {
  form: /** @type {HTMLFormElement} */ (byId('owner-form')),
  owner: /** @type {HTMLInputElement} */ (byId('owner-input')),
  node: /** @type {HTMLSelectElement} */ (byId('node-select')),
  depth: /** @type {HTMLSelectElement} */ (byId('depth-select')),
  status: byId('memory-status'),
  timeCard: byId('time-card'),
  panels: byId('memory-panels'),
  slider: /** @type {HTMLInputElement} */ (byId('time-slider')),
  instant: byId('instant'),
  event: byId('instant-event'),
  ticks: byId('ticks'),
  now: byId('now-button'),
  summary: byId('graph-summary'),
  edges: byId('graph-edges'),
  details: byId('node-details'),
  known: byId('known-facts'),
  timeline: byId('timeline'),
  types: byId('type-legend'),
};

const PALETTE = ['#4338ca', '#0f766e', '#c2410c', '#be185d', '#1d4ed8', '#7e22ce', '#15803d', '#a16207'];
/** @param {string} type */
const colourOf = (type) => PALETTE[Math.max(0, state.types.indexOf(type)) % PALETTE.length];

/** The owner on show: its whole history, loaded once, and the graph drawn at the chosen instant. */
const state = {
  owner: '',
  /** @type {any[]} */ entities: [],
  /** @type {any[]} */ relationships: [],
  /** @type {any[]} */ facts: [],
  /** @type {import('./history.js').Moment[]} */ moments: [],
  /** @type {any} */ graph: { nodes: [], edges: [], facts: [] },
  names: namer([], []),
  /** @type {string[]} entity types in order of first appearance: each keeps its colour at every instant */ types: [],
  /** Answers of an older slider position are dropped when a newer one was asked. */
  request: 0,
};

const graphView = createGraphView(byId('graph'), showNode, colourOf);

/** The instant a slider position stands for: a moment of the history, or now (the last position). */
function instantAt(/** @type {number} */ index) {
  return index < state.moments.length ? state.moments[index].at : null;
}

async function loadOwner(/** @type {string} */ owner) {
  els.status.textContent = `Loading the memory of “${owner}”…`;
  const path = `/api/memory/${encodeURIComponent(owner)}`;
  try {
    const [entities, relationships, facts] = await Promise.all([api(`${path}/entities`), api(`${path}/relationships?history=true`), api(`${path}/facts?history=true`)]);
    Object.assign(state, { owner, entities: entities.entities, relationships: relationships.relationships, facts: facts.facts });
  } catch (error) {
    els.status.textContent = `Could not load “${owner}”: ${/** @type {Error} */ (error).message}`;
    return;
  }
  state.names = namer(state.entities, state.relationships);
  state.moments = moments(state.entities, state.relationships, state.facts);
  history.replaceState(null, '', `/memory${qs({ owner })}`);

  state.types = [...new Set(state.entities.map((e) => e.entity_type))];
  fill(els.types, ...state.types.map((type) => h('span.type', null, h('span.type-dot', { style: `background:${colourOf(type)}` }), type)));
  fill(els.node, ...state.entities.map((e) => h('option', { value: e.memory_entity_id }, `${e.display_name || e.memory_entity_id} (${e.entity_type})`)));
  els.node.disabled = state.entities.length === 0;
  if (state.entities.length === 0 && state.facts.length === 0) {
    els.status.textContent = `“${owner}” has no memory yet: no node, no fact.`;
    els.timeCard.hidden = els.panels.hidden = true;
    return;
  }
  els.status.textContent = `“${owner}”: ${state.entities.length} nodes, ${state.relationships.length} edges and ${state.facts.length} facts in its history, over ${state.moments.length} instants.`;
  els.slider.max = String(state.moments.length);
  els.slider.value = els.slider.max;
  drawTicks();
  els.timeCard.hidden = els.panels.hidden = false;
  graphView.resize();
  await showInstant();
}

function drawTicks() {
  const last = state.moments.length;
  fill(els.ticks, ...state.moments.map((_, i) => h('span.tick', { style: `left:${(i / Math.max(1, last)) * 100}%` })),
    h('span.tick.tick-now', { style: 'left:100%' }));
}

/** Redraws the graph and the facts as of the slider's instant. */
async function showInstant() {
  const index = Number(els.slider.value);
  const at = instantAt(index);
  const moment = state.moments[index];
  els.slider.setAttribute('aria-valuetext', at ? when(at) : 'now');
  fill(els.instant, ...(at ? [timeEl(at), h('code.iso', null, at)] : [h('strong', null, 'Now'), h('span.iso', null, ` ${when(new Date().toISOString())}`)]));
  els.instant.dataset.asOf = at ?? 'now';
  fill(els.event, ...(moment ? [h('span.event-label', null, `Step ${index + 1} of ${state.moments.length}: `), moment.what.join('; ')] : ['Everything Engram knows now.']));

  const request = ++state.request;
  const asOf = at ?? undefined;
  const path = `/api/memory/${encodeURIComponent(state.owner)}`;
  const node = els.node.value;
  try {
    const [graph, facts] = await Promise.all([
      node ? api(`${path}/graph${qs({ node, depth: els.depth.value, as_of: asOf })}`) : Promise.resolve({ nodes: [], edges: [], facts: [] }),
      api(`${path}/facts${qs({ as_of: asOf })}`),
    ]);
    if (request !== state.request) return;
    state.graph = graph;
    drawGraph(node);
    renderFacts({ known: els.known, timeline: els.timeline }, state.facts, facts.facts, at ? Date.parse(at) : Date.now(), state.names.subject);
    // The instant whose graph and facts are on show now (tests wait for it after moving the slider).
    els.panels.dataset.shownAsOf = at ?? 'now';
  } catch (error) {
    if (request === state.request) els.summary.textContent = `Could not draw this instant: ${/** @type {Error} */ (error).message}`;
  }
}

function drawGraph(/** @type {string} */ start) {
  const { nodes, edges } = state.graph;
  graphView.draw(state.graph, start);
  showNode(null);
  if (!start) els.summary.textContent = 'This owner has no node: its facts are about the owner itself.';
  else if (nodes.length === 0) els.summary.textContent = `${state.names.node(start)} did not exist yet at this instant.`;
  else els.summary.textContent = `${nodes.length} node${nodes.length === 1 ? '' : 's'} and ${edges.length} edge${edges.length === 1 ? '' : 's'} within ${els.depth.value} hop${els.depth.value === '1' ? '' : 's'} of ${state.names.node(start)}.`;
  fill(els.edges, ...(edges.length === 0
    ? [h('li', null, 'No edge.')]
    : edges.map((/** @type {any} */ e) => h('li', { dataset: { relationshipId: e.relationship_id, retractedLater: e.invalid_from ? 'true' : 'false' } },
      `${state.names.node(e.from_entity_id)} → ${e.relationship_type} → ${state.names.node(e.to_entity_id)}`,
      e.invalid_from ? h('span.later', null, ' (retracted ', timeEl(e.invalid_from), ')') : null))));
}

/** The details of a node chosen in the drawing: its type, names, attributes and the facts about it then. */
function showNode(/** @type {string | null} */ id) {
  const node = id ? state.graph.nodes.find((/** @type {any} */ n) => n.memory_entity_id === id) : null;
  if (!node) return fill(els.details, h('p.hint', null, 'Choose a node in the drawing to see its details.'));
  const facts = (state.graph.facts ?? []).filter((/** @type {any} */ f) => f.subject_id === id);
  const attributes = Object.entries(node.attributes ?? {});
  fill(els.details,
    h('h3', null, node.display_name || node.memory_entity_id, ' ', h('span.tag', null, node.entity_type)),
    h('p.meta', null, `id ${node.memory_entity_id}`, node.aliases?.length ? ` · also ${node.aliases.join(', ')}` : ''),
    attributes.length ? h('ul.attrs', null, ...attributes.map(([k, v]) => h('li', null, `${k}: ${showValue(v)}`))) : null,
    h('ul.attrs', null, ...(facts.length ? facts.map((/** @type {any} */ f) => h('li', null, `${f.predicate} = ${showValue(f.value)}`)) : [h('li.empty', null, 'No fact about it then.')])));
}

els.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const owner = els.owner.value.trim();
  if (owner) loadOwner(owner);
});
els.slider.addEventListener('input', () => showInstant());
els.node.addEventListener('change', () => showInstant());
els.depth.addEventListener('change', () => showInstant());
els.now.addEventListener('click', () => { els.slider.value = els.slider.max; showInstant(); els.slider.focus(); });
window.addEventListener('resize', () => graphView.resize());

const initial = new URLSearchParams(location.search).get('owner');
if (initial) {
  els.owner.value = initial;
  loadOwner(initial);
} else {
  api('/api/info').then((info) => { els.owner.placeholder = `e.g. ${info.owner}`; }).catch(() => {});
}
