// Workflow graphs (docs/spec.md §4) for the viewer's tests: a hand-made sample with two lanes, an XSS
// sample whose log text is hostile, and a generated graph of any size.

const FILE = 'file:///home/dev/.claude/projects/-home-dev-app/3f1c2a9e-5b7d-4d2b-9a51-6f0e7c8b1d2a.jsonl';
const AGENT_FILE = 'file:///home/dev/.claude/projects/-home-dev-app/agent-80f146b4.jsonl';
const MODEL = 'claude-sonnet-4-5-20250929';

function mk(defaults) {
  let line = 0;
  let t = Date.parse('2025-11-03T09:14:05.120Z');
  return (id, kind, label, extra = {}) => {
    line += 1 + (id.length % 3);
    t += 1500 + ((line * 7919) % 9000);
    const uuid = `${id.padEnd(8, '0').slice(0, 8)}-4c1e-4b8a-9f0d-${String(line).padStart(12, '0')}`;
    return {
      id,
      kind,
      lane: defaults.lane,
      label,
      active: true,
      uuids: [uuid],
      location: {
        uri: defaults.uri,
        range: { start: { line: line - 1, character: 0 }, end: { line: line - 1, character: 240 } },
      },
      timestamp: new Date(t).toISOString(),
      ...(kind === 'THOUGHT' ? { model: MODEL, inputTokens: 1200 + line * 37, outputTokens: 90 + line * 3 } : {}),
      ...extra,
    };
  };
}

/** Two lanes (main + an Explore agent), spawn/return, parallel calls (fork/join), failures, an
 *  abandoned branch, a compaction and an API error. */
export function sampleGraph() {
  const m = mk({ lane: 'main', uri: FILE });
  const a = mk({ lane: 'agent-80f146b4', uri: AGENT_FILE });
  const nodes = [
    m('n1', 'USER_INPUT', 'The login test fails on CI but passes locally. Find out why and fix it.'),
    m('n2', 'THOUGHT', "I'll read the failing test and search for the expiry check at the same time."),
    m('n3', 'ACTION', 'internal/auth/login_test.go', { toolName: 'Read', toolUseId: 'toolu_01Read' }),
    m('n4', 'ACTION', 'ErrExpired in internal/', { toolName: 'Grep', toolUseId: 'toolu_01Grep' }),
    m('n5', 'OBSERVATION', '212 lines', { toolName: 'Read', toolUseId: 'toolu_01Read', status: 'success', durationMs: 14 }),
    m('n6', 'OBSERVATION', '3 matches in 2 files', { toolName: 'Grep', toolUseId: 'toolu_01Grep', status: 'success', durationMs: 52 }),
    m('n7', 'THOUGHT', 'CheckExpiry compares a local clock with a UTC deadline. I will ask an Explore agent to find every caller.'),
    m('n8', 'ACTION', 'Task (Explore): Map the callers of auth.CheckExpiry', { toolName: 'Task', toolUseId: 'toolu_01Task' }),
    a('a1', 'USER_INPUT', 'Find every caller of auth.CheckExpiry and report how each one builds its clock.'),
    a('a2', 'THOUGHT', 'Searching the tree for CheckExpiry.'),
    a('a3', 'ACTION', 'CheckExpiry', { toolName: 'Grep', toolUseId: 'toolu_02Grep' }),
    a('a4', 'OBSERVATION', '5 matches in 3 files', { toolName: 'Grep', toolUseId: 'toolu_02Grep', status: 'success', durationMs: 61 }),
    a('a5', 'ACTION', 'internal/session/refresh.go', { toolName: 'Read', toolUseId: 'toolu_02Read' }),
    a('a6', 'OBSERVATION', 'File does not exist.', { toolName: 'Read', toolUseId: 'toolu_02Read', status: 'failure', durationMs: 3 }),
    a('a7', 'ACTION', 'internal/session/renew.go', { toolName: 'Read', toolUseId: 'toolu_02Read2' }),
    a('a8', 'OBSERVATION', '88 lines', { toolName: 'Read', toolUseId: 'toolu_02Read2', status: 'success', durationMs: 9 }),
    a('a9', 'THOUGHT', 'Three callers; renew.go and middleware.go pass time.Now() without converting it to UTC.'),
    m('n9', 'OBSERVATION', 'Three callers; two pass a local clock', { toolName: 'Task', toolUseId: 'toolu_01Task', status: 'success', durationMs: 48211 }),
    m('n10', 'THOUGHT', 'Fix: normalise both times to UTC inside CheckExpiry.'),
    m('n11', 'ACTION', 'internal/auth/expiry.go', { toolName: 'Edit', toolUseId: 'toolu_03Edit' }),
    m('n12', 'OBSERVATION', 'String to replace not found in file.', { toolName: 'Edit', toolUseId: 'toolu_03Edit', status: 'failure', durationMs: 7 }),
    m('n13', 'THOUGHT', 'The file changed since I read it; reading it again.'),
    m('n14', 'ACTION', 'internal/auth/expiry.go', { toolName: 'Read', toolUseId: 'toolu_03Read' }),
    m('n15', 'OBSERVATION', '64 lines', { toolName: 'Read', toolUseId: 'toolu_03Read', status: 'success', durationMs: 11 }),
    m('n16', 'ACTION', 'internal/auth/expiry.go', { toolName: 'Edit', toolUseId: 'toolu_03Edit2' }),
    m('n17', 'OBSERVATION', 'The file has been updated.', { toolName: 'Edit', toolUseId: 'toolu_03Edit2', status: 'success', durationMs: 19 }),
    m('n18', 'ACTION', 'go test ./internal/auth/...', { toolName: 'Bash', toolUseId: 'toolu_03Bash' }),
    m('n19', 'OBSERVATION', 'ok  example.com/app/internal/auth  0.41s', { toolName: 'Bash', toolUseId: 'toolu_03Bash', status: 'success', durationMs: 2310 }),
    // abandoned branch: the user edited their prompt, this turn was left behind
    m('x1', 'USER_INPUT', 'Just skip the flaky test for now.', { active: false }),
    m('x2', 'THOUGHT', 'Adding t.Skip to the login test.', { active: false }),
    m('x3', 'ACTION', 'internal/auth/login_test.go', { toolName: 'Edit', toolUseId: 'toolu_04Edit', active: false }),
    m('x4', 'OBSERVATION', 'The file has been updated.', { toolName: 'Edit', toolUseId: 'toolu_04Edit', status: 'success', durationMs: 15, active: false }),
    m('n20', 'USER_INPUT', 'Good. Also add a regression test that runs with TZ=America/New_York.'),
    m('n21', 'SYSTEM', 'API Error: 529 Overloaded', { status: 'failure' }),
    m('n22', 'THOUGHT', 'Adding TestCheckExpiryNonUTC with a fixed clock.'),
    m('n23', 'ACTION', 'internal/auth/expiry_test.go', { toolName: 'Write', toolUseId: 'toolu_05Write' }),
    m('n24', 'OBSERVATION', 'File created successfully.', { toolName: 'Write', toolUseId: 'toolu_05Write', status: 'success', durationMs: 8 }),
    m('n25', 'SYSTEM', 'Conversation compacted (auto, 156k tokens)'),
    m('n26', 'THOUGHT', 'Continuing after the summary: the fix and its test are in; running the whole suite.'),
    m('n27', 'ACTION', 'go test ./...', { toolName: 'Bash', toolUseId: 'toolu_06Bash' }),
    m('n28', 'OBSERVATION', 'ok  example.com/app/...  (14 packages)', { toolName: 'Bash', toolUseId: 'toolu_06Bash', status: 'success', durationMs: 9120 }),
    m('n29', 'THOUGHT', 'All tests pass. CheckExpiry now compares UTC times; the new test pins the bug.'),
  ];
  const E = (source, target, kind = 'flow') => ({ source, target, kind });
  const edges = [
    E('n1', 'n2'),
    E('n2', 'n3'), E('n2', 'n4'),
    E('n3', 'n5', 'tool'), E('n4', 'n6', 'tool'),
    E('n5', 'n7'), E('n6', 'n7'),
    E('n7', 'n8'),
    E('n8', 'a1', 'spawn'),
    E('a1', 'a2'), E('a2', 'a3'), E('a3', 'a4', 'tool'), E('a4', 'a5'), E('a5', 'a6', 'tool'), E('a6', 'a7'),
    E('a7', 'a8', 'tool'), E('a8', 'a9'),
    E('a9', 'n9', 'return'),
    E('n8', 'n9', 'tool'),
    E('n9', 'n10'), E('n10', 'n11'), E('n11', 'n12', 'tool'), E('n12', 'n13'), E('n13', 'n14'),
    E('n14', 'n15', 'tool'), E('n15', 'n16'), E('n16', 'n17', 'tool'), E('n17', 'n18'), E('n18', 'n19', 'tool'),
    E('n19', 'x1'), E('x1', 'x2'), E('x2', 'x3'), E('x3', 'x4', 'tool'),
    E('n19', 'n20'), E('n20', 'n21'), E('n21', 'n22'), E('n22', 'n23'), E('n23', 'n24', 'tool'),
    E('n24', 'n25', 'compact'), E('n25', 'n26'), E('n26', 'n27'), E('n27', 'n28', 'tool'), E('n28', 'n29'),
  ];
  return {
    session: {
      id: '3f1c2a9e-5b7d-4d2b-9a51-6f0e7c8b1d2a',
      files: [{ uri: FILE, lane: 'main' }, { uri: AGENT_FILE, lane: 'agent-80f146b4' }],
    },
    lanes: [
      { id: 'main', label: 'main' },
      { id: 'agent-80f146b4', label: 'Explore', agentId: '80f146b4', subagentType: 'Explore', parentNode: 'n8', depth: 1 },
    ],
    nodes,
    edges,
  };
}

/** Hostile strings a log can hold. None of them may run or be parsed as markup. */
export const XSS_STRINGS = [
  '</script><script>window.__pwned=1;alert(1)</script>',
  '<img src=x onerror="window.__pwned=2;alert(2)">',
  '<svg onload="window.__pwned=3">',
  'javascript:window.__pwned=4',
  '<a href="javascript:window.__pwned=5">click me</a>',
  '<!-- <script>window.__pwned=6</script> -->',
  '\u2028\u2029 line separators </SCRIPT > & &amp; &lt;b&gt;',
];

export function xssGraph() {
  const g = sampleGraph();
  g.session.id = '</script><script>window.__pwned=7</script>';
  g.lanes[1].label = '<img src=x onerror="window.__pwned=8">';
  g.lanes[1].subagentType = '</script><b>bold</b>';
  const hostile = g.nodes.slice(0, XSS_STRINGS.length);
  hostile.forEach((n, i) => {
    n.label = XSS_STRINGS[i];
    n.toolName = n.toolName ? XSS_STRINGS[(i + 1) % XSS_STRINGS.length] : undefined;
    n.model = XSS_STRINGS[(i + 2) % XSS_STRINGS.length];
    n.location.uri = 'javascript:window.__pwned=9//' + XSS_STRINGS[i];
    n.uuids = [XSS_STRINGS[(i + 3) % XSS_STRINGS.length]];
  });
  return g;
}

/** A deterministic session-like graph with about `target` nodes: turns of thought → parallel
 *  tool calls → join, sub-agents every few turns, failures, one abandoned branch. */
export function bigGraph(target = 500) {
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const nodes = [];
  const edges = [];
  const lanes = [{ id: 'main', label: 'main' }];
  let id = 0;
  const add = (lane, kind, label, extra = {}) => {
    const n = { id: 'g' + ++id, kind, lane, label, active: true, uuids: [`u-${id}`], ...extra };
    nodes.push(n);
    return n.id;
  };
  const tools = ['Read', 'Grep', 'Bash', 'Edit', 'Glob', 'Write'];
  // one turn in `lane` after `prev`; returns the last node
  const turn = (lane, prev, depth, extra = {}) => {
    const t = add(lane, 'THOUGHT', `Step ${id}: thinking about the next move`, extra);
    if (prev) edges.push({ source: prev, target: t, kind: 'flow' });
    const k = 1 + Math.floor(rnd() * (rnd() < 0.3 ? 4 : 1.5));
    const obs = [];
    for (let i = 0; i < k; i++) {
      const spawn = lane === 'main' && depth === 0 && rnd() < 0.08 && lanes.length < 9;
      const tool = spawn ? 'Task' : tools[Math.floor(rnd() * tools.length)];
      const act = add(lane, 'ACTION', `${tool} call ${id}`, { toolName: tool, toolUseId: `toolu_${id}`, ...extra });
      edges.push({ source: t, target: act, kind: 'flow' });
      let last = null;
      if (spawn) {
        const laneId = `agent-${(0x10000000 + lanes.length * 7777777).toString(16)}`;
        lanes.push({ id: laneId, label: rnd() < 0.5 ? 'Explore' : 'Plan', agentId: laneId.slice(6), subagentType: 'Explore', parentNode: act, depth: 1 });
        const first = add(laneId, 'USER_INPUT', 'Sub-agent prompt');
        edges.push({ source: act, target: first, kind: 'spawn' });
        last = first;
        const steps = 3 + Math.floor(rnd() * 6);
        for (let s = 0; s < steps; s++) last = turn(laneId, last, 1);
      }
      const failure = rnd() < 0.07;
      const o = add(lane, 'OBSERVATION', failure ? 'Error: exit status 1' : 'ok', {
        toolName: tool, toolUseId: `toolu_${id}`, status: failure ? 'failure' : 'success', durationMs: Math.floor(rnd() * 4000), ...extra,
      });
      edges.push({ source: act, target: o, kind: 'tool' });
      if (last) edges.push({ source: last, target: o, kind: 'return' });
      obs.push(o);
    }
    const j = add(lane, 'THOUGHT', `Step ${id}: read the results`, extra);
    for (const o of obs) edges.push({ source: o, target: j, kind: 'flow' });
    return j;
  };
  let prev = add('main', 'USER_INPUT', 'Build the feature');
  let abandoned = false;
  while (nodes.length < target) {
    if (!abandoned && nodes.length > target / 2) {
      abandoned = true;
      const u = add('main', 'USER_INPUT', 'An abandoned prompt', { active: false });
      edges.push({ source: prev, target: u, kind: 'flow' });
      turn('main', u, 0, { active: false });
    }
    if (rnd() < 0.12) {
      const u = add('main', 'USER_INPUT', 'Next request');
      edges.push({ source: prev, target: u, kind: 'flow' });
      prev = u;
    }
    prev = turn('main', prev, 0);
  }
  return { session: { id: 'generated-' + target, files: [] }, lanes, nodes, edges };
}

/** A session with `agents` sub-agent lanes, as Claude Code names them: each spawned by a
 *  `Task (type): description` call (lane label = the type, as internal/graph sends it), two of them
 *  with the same type and description, and Claude Code's own prompt-suggestion agent (id
 *  `aprompt_suggestion-debb9a`, no spawning call). Each agent runs `steps` turns after the last
 *  one returned, so the graph is tall: Fit's zoom at 800 px is a few hundredths. */
export function lanesGraph(agents = 15, steps = 40) {
  const nodes = [];
  const edges = [];
  const lanes = [{ id: 'main', label: 'main' }];
  let id = 0;
  const add = (lane, kind, label, extra = {}) => {
    const n = { id: 'l' + ++id, kind, lane, label, active: true, uuids: [`u-${id}`], ...extra };
    nodes.push(n);
    return n.id;
  };
  const link = (source, target, kind = 'flow') => edges.push({ source, target, kind });
  const types = ['Explore', 'Plan', 'general-purpose'];
  const jobs = ['Find every caller of CheckExpiry', 'Map the auth middleware', 'Design the migration plan', 'Review the retry logic', 'Trace the session cache'];
  let prev = add('main', 'USER_INPUT', 'Refactor the token expiry checks');
  for (let a = 0; a < agents; a++) {
    const type = types[a % types.length];
    const desc = a <= 1 ? jobs[0] : `${jobs[a % jobs.length]} (part ${a + 1})`; // agent 1 reads as agent 0
    const t = add('main', 'THOUGHT', `I will ask an agent: ${desc}`);
    link(prev, t);
    const act = add('main', 'ACTION', `Task (${a === 1 ? types[0] : type}): ${desc}`, { toolName: 'Task', toolUseId: `toolu_${a}` });
    link(t, act);
    const laneId = `agent-a${(0x1000000 + a * 7777777).toString(16)}`;
    lanes.push({ id: laneId, label: a === 1 ? types[0] : type, agentId: laneId.slice(6), subagentType: a === 1 ? types[0] : type, parentNode: act, depth: 1 });
    let last = add(laneId, 'USER_INPUT', `${desc}. Report file paths and line numbers.`);
    link(act, last, 'spawn');
    for (let s = 0; s < steps; s++) {
      const th = add(laneId, 'THOUGHT', `Looking at step ${s + 1}`);
      link(last, th);
      const call = add(laneId, 'ACTION', `Grep: CheckExpiry in src/${s}`, { toolName: 'Grep', toolUseId: `toolu_${a}_${s}` });
      link(th, call);
      const obs = add(laneId, 'OBSERVATION', `src/auth/expiry_${a}_${s}.go:42`, { toolName: 'Grep', toolUseId: `toolu_${a}_${s}`, status: 'success' });
      link(call, obs, 'tool');
      last = obs;
    }
    const back = add('main', 'OBSERVATION', `agent ${a + 1} reported`, { toolName: 'Task', toolUseId: `toolu_${a}`, status: 'success' });
    link(act, back, 'tool');
    link(last, back, 'return');
    prev = back;
  }
  // Claude Code's prompt suggestion: its own log, no call in main.
  const ps = 'agent-aprompt_suggestion-debb9a';
  lanes.push({ id: ps, label: 'aprompt_suggestion-debb9a', agentId: 'aprompt_suggestion-debb9a', depth: 1 });
  add(ps, 'THOUGHT', 'Suggest: run the tests');
  const end = add('main', 'THOUGHT', 'Needle: every expiry check now uses the UTC clock.');
  link(prev, end);
  return { session: { id: 'lanes-' + agents, files: [] }, lanes, nodes, edges };
}
