// @ts-check
// Cytoscape (MIT, pinned in package.json) is served by the app from its own node_modules: no CDN.
import cytoscape from '/vendor/cytoscape.esm.min.mjs';

/**
 * Hops from the start node over edges in either direction, as the graph route walks them.
 * @param {string} start @param {any[]} edges
 */
function distances(start, edges) {
  const dist = new Map([[start, 0]]);
  let frontier = [start];
  while (frontier.length) {
    /** @type {string[]} */
    const next = [];
    for (const e of edges) {
      for (const [a, b] of [[e.from_entity_id, e.to_entity_id], [e.to_entity_id, e.from_entity_id]]) {
        if (frontier.includes(a) && !dist.has(b)) { dist.set(b, (dist.get(a) ?? 0) + 1); next.push(b); }
      }
    }
    frontier = next;
  }
  return dist;
}

/**
 * The graph drawing: nodes coloured by type around the start node, edges labelled by type; an edge that
 * was retracted after the instant shown is drawn dashed. `onSelect` gets a node's id when it is chosen.
 * @param {HTMLElement} container
 * @param {(id: string | null) => void} onSelect
 * @param {(type: string) => string} colourOf the colour of an entity type
 */
export function createGraphView(container, onSelect, colourOf) {
  const cy = cytoscape({
    container,
    minZoom: 0.3,
    maxZoom: 3,
    style: [
      { selector: 'node', style: {
        label: 'data(label)', 'background-color': 'data(colour)', color: '#1c2030', 'font-size': 13, 'font-weight': 600,
        'text-valign': 'bottom', 'text-margin-y': 6, width: 34, height: 34, 'border-width': 3, 'border-color': '#ffffff',
        'text-background-color': '#ffffff', 'text-background-opacity': 0.85, 'text-background-padding': '2px',
      } },
      { selector: 'node.start', style: { width: 46, height: 46, 'border-color': '#fde68a', 'border-width': 5 } },
      { selector: 'node:selected', style: { 'border-color': '#2563eb', 'border-width': 5 } },
      { selector: 'edge', style: {
        label: 'data(label)', width: 2.5, 'line-color': '#8b93a7', 'target-arrow-color': '#8b93a7', 'target-arrow-shape': 'triangle',
        'curve-style': 'bezier', 'font-size': 11, color: '#374151', 'text-rotation': 'none',
        'text-background-color': '#f4f5f8', 'text-background-opacity': 1, 'text-background-padding': '2px',
      } },
      { selector: 'edge.retracted-later', style: { 'line-style': 'dashed', 'line-color': '#d97706', 'target-arrow-color': '#d97706' } },
    ],
  });
  cy.on('tap', 'node', (event) => onSelect(event.target.id()));
  cy.on('tap', (event) => { if (event.target === cy) onSelect(null); });
  // For a look from the browser's console (and the page's tests): the drawing's own model.
  /** @type {any} */ (window).memoryGraph = cy;

  return {
    /**
     * @param {{ nodes: any[], edges: any[] }} graph
     * @param {string} start
     */
    draw(graph, start) {
      const dist = distances(start, graph.edges);
      const far = Math.max(0, ...dist.values());
      cy.batch(() => {
        cy.elements().remove();
        cy.add(graph.nodes.map((n) => ({
          group: 'nodes',
          data: { id: n.memory_entity_id, label: n.display_name || n.memory_entity_id, colour: colourOf(n.entity_type), ring: far - (dist.get(n.memory_entity_id) ?? far) },
          classes: n.memory_entity_id === start ? 'start' : '',
        })));
        cy.add(graph.edges.map((e) => ({
          group: 'edges',
          data: { id: e.relationship_id, source: e.from_entity_id, target: e.to_entity_id, label: e.relationship_type },
          classes: e.invalid_from ? 'retracted-later' : '',
        })));
      });
      cy.layout({ name: 'concentric', concentric: (node) => node.data('ring'), levelWidth: () => 1, minNodeSpacing: 70, padding: 40, animate: false }).run();
      cy.fit(undefined, 40);
      if (cy.zoom() > 1.6) { cy.zoom(1.6); cy.center(); }
    },
    resize() { cy.resize(); cy.fit(undefined, 40); },
  };
}
