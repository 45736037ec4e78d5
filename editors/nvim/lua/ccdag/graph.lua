-- :CcdagGraph: the session's workflow graph (docs/spec.md §4) as a text tree in a split, or as the HTML
-- picture `ccdag graph --format html` writes. Uses the client and helpers of require('ccdag').
local M = {}

local api = vim.api

local function ccdag()
  return require('ccdag')
end

local function notify(msg, level)
  ccdag().notify(msg, level)
end

local function jump(location, encoding)
  return ccdag()._jump(location, encoding)
end

local function buf_path(bufnr)
  return ccdag().buf_path(bufnr)
end


local kind_mark = {
  USER_INPUT = '[U]',
  THOUGHT = '[T]',
  ACTION = '[A]',
  OBSERVATION = '[O]',
  SYSTEM = '[S]',
}

-- One line of log text, safe for a buffer line.
local function oneline(s, max)
  s = tostring(s or ''):gsub('[%c]+', ' '):gsub('%s+', ' ')
  s = vim.trim(s)
  max = max or 90
  if vim.fn.strchars(s) > max then
    s = vim.fn.strcharpart(s, 0, max - 1) .. '…'
  end
  return s
end

local function basename(uri)
  if not uri then
    return ''
  end
  local ok, fname = pcall(vim.uri_to_fname, uri)
  return vim.fn.fnamemodify(ok and fname or uri, ':t')
end

--- Render a workflow graph (docs/spec.md §4) as a text tree.
--- Returns the lines and, for each line that shows a node, its location (by line index).
function M.render_graph(g)
  local lines, locs = {}, {}
  local nodes = g.nodes or {}
  local edges = g.edges or {}
  local byid, order = {}, {}
  for i, n in ipairs(nodes) do
    byid[n.id] = n
    order[n.id] = i
  end

  -- Lanes in the graph's order, then any lane only nodes name.
  local lanes, lane_seen = {}, {}
  for _, l in ipairs(g.lanes or {}) do
    if not lane_seen[l.id] then
      lane_seen[l.id] = true
      table.insert(lanes, l)
    end
  end
  for _, n in ipairs(nodes) do
    if n.lane and not lane_seen[n.lane] then
      lane_seen[n.lane] = true
      table.insert(lanes, { id = n.lane, label = n.lane })
    end
  end

  -- Predecessors within a lane (flow and tool edges); cross-lane notes.
  local preds, pred_seen = {}, {}
  local spawns, returns, compacts = {}, {}, {}
  for _, e in ipairs(edges) do
    local s, t = byid[e.source], byid[e.target]
    if s and t then
      if (e.kind == 'flow' or e.kind == 'tool') and s.lane == t.lane and order[s.id] < order[t.id] then
        local key = s.id .. '>' .. t.id
        if not pred_seen[key] then
          pred_seen[key] = true
          preds[t.id] = preds[t.id] or {}
          table.insert(preds[t.id], s.id)
        end
      elseif e.kind == 'spawn' then
        spawns[s.id] = spawns[s.id] or {}
        table.insert(spawns[s.id], t.lane)
      elseif e.kind == 'return' then
        returns[t.id] = s.lane
      elseif e.kind == 'compact' then
        compacts[t.id] = s.id
      end
    end
  end

  local lane_label = {}
  for _, l in ipairs(lanes) do
    lane_label[l.id] = l.label or l.id
  end

  local session = g.session or {}
  local lane_file = {}
  for _, f in ipairs(session.files or {}) do
    if f.lane and not lane_file[f.lane] then
      lane_file[f.lane] = basename(f.uri)
    end
  end

  table.insert(lines, string.format('Session %s: %d nodes, %d edges, %d lanes',
    session.id or '?', #nodes, #edges, #lanes))
  table.insert(lines, '[U] user  [T] thought  [A] action  [O] result  [S] system  [x] inactive branch  ↳ fork')
  table.insert(lines, '<CR> jump to the record   q close')

  for _, lane in ipairs(lanes) do
    local members = {}
    for _, n in ipairs(nodes) do
      if n.lane == lane.id then
        table.insert(members, n)
      end
    end
    table.insert(lines, '')
    local head = '== ' .. (lane.label or lane.id)
    if lane.id ~= 'main' and lane.id ~= lane.label then
      head = head .. ' (' .. lane.id .. ')'
    end
    if lane.depth then
      head = head .. ', depth ' .. lane.depth
    end
    if lane.parentNode and byid[lane.parentNode] then
      local p = byid[lane.parentNode]
      local pl = p.location and p.location.range and (p.location.range.start.line + 1)
      head = head .. (pl and (', spawned at L' .. pl) or (', spawned by ' .. lane.parentNode))
    end
    if lane_file[lane.id] then
      head = head .. ', ' .. lane_file[lane.id]
    end
    head = head .. ', ' .. #members .. ' nodes =='
    table.insert(lines, head)

    -- A tree over the lane: a node's tree parent is its one predecessor, or for a join
    -- (several predecessors) their nearest common ancestor, so the join continues the fork.
    local tparent, depth, children = {}, {}, {}
    local roots = {}
    local function lca(a, b)
      while a ~= b do
        if a == nil or b == nil then
          return nil
        end
        if (depth[a] or 0) >= (depth[b] or 0) then
          a = tparent[a]
        else
          b = tparent[b]
        end
      end
      return a
    end
    for _, n in ipairs(members) do
      local ps = preds[n.id] or {}
      local p
      if #ps == 1 then
        p = ps[1]
      elseif #ps > 1 then
        p = ps[1]
        for i = 2, #ps do
          p = lca(p, ps[i])
          if not p then
            break
          end
        end
        if not p then
          p = ps[#ps]
        end
      end
      if p and depth[p] ~= nil then
        tparent[n.id] = p
        depth[n.id] = depth[p] + 1
        children[p] = children[p] or {}
        table.insert(children[p], n.id)
      else
        depth[n.id] = 0
        table.insert(roots, n.id)
      end
    end

    local function emit(id, indent, fork)
      local n = byid[id]
      local text = (kind_mark[n.kind] or ('[' .. tostring(n.kind) .. ']'))
      if n.active == false then
        text = '[x] ' .. text
      end
      local label = oneline(n.label)
      if n.kind == 'ACTION' and n.toolName and not label:find(n.toolName, 1, true) then
        label = n.toolName .. ': ' .. label
      end
      text = text .. ' ' .. label
      local extra = {}
      if n.kind == 'OBSERVATION' and n.status then
        table.insert(extra, n.status)
      end
      if n.status == 'failure' and n.kind ~= 'OBSERVATION' then
        table.insert(extra, 'failure')
      end
      if n.durationMs and n.durationMs > 0 then
        table.insert(extra, string.format('%.1fs', n.durationMs / 1000))
      end
      for _, l in ipairs(spawns[id] or {}) do
        table.insert(extra, '⇒ ' .. (lane_label[l] or l))
      end
      if returns[id] then
        table.insert(extra, '⇐ ' .. (lane_label[returns[id]] or returns[id]))
      end
      if compacts[id] then
        table.insert(extra, 'compacted from ' .. compacts[id])
      end
      if #extra > 0 then
        text = text .. '  (' .. table.concat(extra, ', ') .. ')'
      end
      local lnum = ''
      if n.location and n.location.range then
        lnum = tostring(n.location.range.start.line + 1)
      end
      local prefix = string.rep('  ', indent) .. (fork and '↳ ' or '  ')
      table.insert(lines, string.format('%7s %s%s', lnum, prefix, text))
      if n.location then
        locs[#lines] = n.location
      end
    end

    -- Depth-first with an explicit stack: a chain continues at its indentation; at a
    -- fork every child but the continuation (the last active one) is indented.
    local stack = {}
    for i = #roots, 1, -1 do
      table.insert(stack, { roots[i], 0, false })
    end
    while #stack > 0 do
      local item = table.remove(stack)
      local id, indent = item[1], item[2]
      emit(id, indent, item[3])
      local kids = children[id] or {}
      if #kids == 1 then
        table.insert(stack, { kids[1], indent, false })
      elseif #kids > 1 then
        local cont = nil
        for i = #kids, 1, -1 do
          if byid[kids[i]].active ~= false then
            cont = i
            break
          end
        end
        cont = cont or #kids
        table.insert(stack, { kids[cont], indent, false })
        for i = #kids, 1, -1 do
          if i ~= cont then
            table.insert(stack, { kids[i], indent + 1, true })
          end
        end
      end
    end
  end
  return lines, locs
end

local function graph_buffer(name)
  local existing = vim.fn.bufnr(name)
  local win
  if existing ~= -1 then
    win = vim.fn.bufwinid(existing)
  end
  if win and win ~= -1 then
    api.nvim_set_current_win(win)
    return existing
  end
  vim.cmd('botright split')
  local buf
  if existing ~= -1 then
    buf = existing
  else
    buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(buf, name)
  end
  api.nvim_win_set_buf(0, buf)
  return buf
end

--- Show a graph as a text tree in a split. Returns the buffer.
function M.show_text_graph(g, source_win)
  local lines, locs = M.render_graph(g)
  local sid = (g.session and g.session.id) or 'session'
  local buf = graph_buffer('ccdag://graph/' .. sid)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'ccdaggraph'
  vim.wo.wrap = false
  M._graph_locs = M._graph_locs or {}
  M._graph_locs[buf] = { locs = locs, win = source_win }
  local opts = { buffer = buf, silent = true, nowait = true }
  vim.keymap.set('n', '<CR>', function()
    M.graph_jump(buf)
  end, opts)
  vim.keymap.set('n', 'q', '<cmd>close<CR>', opts)
  vim.cmd([[
    syntax clear
    syntax match CcdagGraphHead /^==.*==$/
    syntax match CcdagGraphLine /^\s*\d\+ /
    syntax match CcdagGraphInactive /\[x\].*$/
    syntax match CcdagGraphUser /\[U\]/
    syntax match CcdagGraphAction /\[A\]/
    syntax match CcdagGraphSystem /\[S\]/
    highlight default link CcdagGraphHead Title
    highlight default link CcdagGraphLine LineNr
    highlight default link CcdagGraphInactive Comment
    highlight default link CcdagGraphUser Statement
    highlight default link CcdagGraphAction Function
    highlight default link CcdagGraphSystem PreProc
  ]])
  return buf
end

--- <CR> in the graph buffer: jump to the record of the node under the cursor.
function M.graph_jump(buf)
  local st = M._graph_locs and M._graph_locs[buf]
  local row = api.nvim_win_get_cursor(0)[1]
  local loc = st and st.locs[row]
  if not loc then
    return
  end
  if st.win and api.nvim_win_is_valid(st.win) then
    api.nvim_set_current_win(st.win)
  else
    vim.cmd('wincmd p')
  end
  jump(loc, 'utf-16')
end

local function browser_available()
  if vim.fn.has('mac') == 1 or vim.fn.has('win32') == 1 then
    return true
  end
  if (vim.env.DISPLAY or '') == '' and (vim.env.WAYLAND_DISPLAY or '') == '' then
    return false
  end
  return vim.ui.open ~= nil or vim.fn.executable('xdg-open') == 1
end
M._browser_available = browser_available

local function open_in_browser(file)
  if vim.ui.open then
    local _, err = vim.ui.open(file)
    if err then
      notify('could not open ' .. file .. ': ' .. err, vim.log.levels.WARN)
    end
    return
  end
  local cmd
  if vim.fn.has('mac') == 1 then
    cmd = { 'open', file }
  elseif vim.fn.has('win32') == 1 then
    cmd = { 'cmd.exe', '/c', 'start', '', file }
  else
    cmd = { 'xdg-open', file }
  end
  vim.fn.jobstart(cmd, { detach = true })
end

--- Run `ccdag graph` as a job. on_done(ok, stdout_text, stderr_text)
local function run_cli(args, on_done)
  local out, errs = {}, {}
  local cmd = { ccdag().binary(), 'graph' }
  vim.list_extend(cmd, args)
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data or {}
    end,
    on_stderr = function(_, data)
      errs = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        on_done(code == 0, table.concat(out, '\n'), vim.trim(table.concat(errs, '\n')))
      end)
    end,
  })
  if not ok or job <= 0 then
    on_done(false, '', 'cannot run ' .. ccdag().binary())
  end
end

--- Write the session's graph as one HTML file and open it. Returns the file name.
function M.graph_html(bufnr, open)
  local path = buf_path(bufnr)
  if not path then
    return notify('this buffer has no file', vim.log.levels.WARN)
  end
  if vim.bo[bufnr].modified then
    notify('the picture shows the file on disk, not the unsaved changes', vim.log.levels.WARN)
  end
  local dir = vim.fn.stdpath('cache') .. '/ccdag'
  vim.fn.mkdir(dir, 'p')
  local file = dir .. '/' .. vim.fn.fnamemodify(path, ':t:r') .. '.html'
  M.last_html_error = nil
  run_cli({ '--format', 'html', '-o', file, path }, function(ok, _, err)
    if not ok then
      M.last_html_error = err ~= '' and err or 'ccdag graph failed'
      return notify('ccdag graph failed: ' .. err, vim.log.levels.ERROR)
    end
    M.last_html = file
    if open ~= false then
      open_in_browser(file)
    end
    notify('graph written to ' .. file)
  end)
  return file
end

--- Fetch the graph for a buffer: through the language server when it is attached,
--- else with `ccdag graph --format json`. cb(graph) or cb(nil, error)
function M.fetch_graph(bufnr, cb)
  local client = ccdag().get_client(bufnr)
  if client then
    local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
    ccdag().request(client, 'ccdag/workflowGraph', params, function(err, result)
      if err then
        return cb(nil, err.message or vim.inspect(err))
      end
      cb(result)
    end, bufnr)
    return
  end
  local path = buf_path(bufnr)
  if not path then
    return cb(nil, 'this buffer has no file')
  end
  run_cli({ '--format', 'json', path }, function(ok, out, err)
    if not ok then
      return cb(nil, err)
    end
    local dok, g = pcall(vim.json.decode, out)
    if not dok then
      return cb(nil, 'bad JSON from ccdag graph')
    end
    cb(g)
  end)
end

--- :CcdagGraph [text|html]
function M.graph(mode)
  local bufnr = api.nvim_get_current_buf()
  local win = api.nvim_get_current_win()
  mode = (mode ~= nil and mode ~= '') and mode or ccdag().config.graph
  if mode == 'auto' then
    mode = browser_available() and 'html' or 'text'
  end
  if mode == 'html' then
    return M.graph_html(bufnr, true)
  end
  if mode ~= 'text' then
    return notify('unknown graph mode ' .. mode .. ' (text or html)', vim.log.levels.ERROR)
  end
  M.fetch_graph(bufnr, function(g, err)
    if not g then
      return notify('workflow graph failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
    M.show_text_graph(g, win)
  end)
end

return M
