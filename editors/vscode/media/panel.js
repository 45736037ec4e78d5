// The workflow-graph webview's glue: receives the graph from the extension, draws it with the
// shared viewer (graphview.js, global CcdagGraph) and posts reveal requests back. Log text is only
// ever set as text (textContent), never as HTML.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const statusEl = document.getElementById('status');
  const graphEl = document.getElementById('graph');
  let view = null;

  function setStatus(text, isError) {
    statusEl.textContent = text || '';
    statusEl.hidden = !text;
    statusEl.classList.toggle('error', !!isError);
  }

  function onReveal(node) {
    if (!node || typeof node !== 'object') return;
    vscode.postMessage({ type: 'reveal', nodeId: node.id, location: node.location });
  }

  function draw(graph) {
    const nodes = graph && Array.isArray(graph.nodes) ? graph.nodes.length : 0;
    document.body.dataset.nodes = String(nodes);
    if (typeof window.CcdagGraph === 'undefined' || typeof window.CcdagGraph.render !== 'function') {
      setStatus('The graph viewer (graphview.js) is missing from this build of the extension.', true);
      return;
    }
    setStatus(nodes === 0 ? 'This session has no records that make a graph node.' : '');
    // The last graph and the viewer's handle (stats, select, cy): for debugging in the webview's
    // devtools, and for the end-to-end test, which reads node positions from them to click nodes.
    window.ccdagGraph = graph;
    try {
      if (view) {
        view.update(graph);
      } else {
        view = window.CcdagGraph.render(graphEl, graph, { theme: 'auto', onReveal });
        window.ccdagGraphView = view;
      }
      document.body.dataset.rendered = 'true';
    } catch (err) {
      setStatus('Could not draw the workflow graph: ' + (err && err.message ? err.message : String(err)), true);
    }
  }

  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'graph') draw(msg.graph);
    else if (msg.type === 'error') setStatus(String(msg.message || 'Unknown error'), true);
    else if (msg.type === 'select' && view && typeof msg.nodeId === 'string') {
      // The cursor moved to a record in the log: select its node (no reveal back: no loop).
      view.select(msg.nodeId);
      window.ccdagSelected = msg.nodeId;
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
