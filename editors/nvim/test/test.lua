-- Neovim end-to-end test of the ccdag plugin against the real `ccdag serve`.
-- Run by editors/nvim/test/run.sh; exit code = verdict (:cquit 1 on any failure).
local api = vim.api
local ccdag = require('ccdag')
local graph = require('ccdag.graph')

local MAIN = vim.env.CCDAG_TEST_MAIN -- copy of the 87bcc603 session's main log
local AGENT = 'ac6b686' -- the one sub-agent whose log was published with the session
local TASK_ID = 'toolu_017xTxSdx33AzofDvxdCpABD' -- the Task call that spawned it
-- missing-agent-file: the corpus README's 24 27 36 42 51 378 381, and 551 and 707, which its table
-- leaves out (checked by hand: their results name agents aa12c48 and a9e9b60, whose logs are not in
-- subagents/). Also true: the compaction at 625 names a logical parent that is in no file.
local EXPECTED = { 24, 27, 36, 42, 51, 378, 381, 551, 707 }
local EXPECTED_OTHER = { '625 unresolved-logical-parent' }
local TIMEOUT = tonumber(vim.env.CCDAG_TEST_TIMEOUT or '60000') -- a bound for hangs, not a pace

local passed, failed = 0, 0
local function out(s)
  io.stdout:write(s .. '\n')
end

local function finish()
  out(string.format('nvim: %d passed, %d failed', passed, failed))
  if failed > 0 then
    vim.cmd('cquit 1')
  else
    vim.cmd('qa!')
  end
end

local function step(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    out('ok   - ' .. name)
  else
    failed = failed + 1
    out('FAIL - ' .. name .. '\n' .. tostring(err))
  end
  return ok
end

local function wait_for(what, cond, ms)
  local ok = vim.wait(ms or TIMEOUT, cond, 20)
  if not ok then
    error('timed out waiting for ' .. what, 2)
  end
end

local function eq(a, b, what)
  if not vim.deep_equal(a, b) then
    error(string.format('%s: expected %s, got %s', what, vim.inspect(b), vim.inspect(a)), 2)
  end
end

local function assert_true(v, what)
  if not v then
    error(what, 2)
  end
end

-- Put the cursor on the first character of a JSON string value: `"key":"value"` on line lnum.
local function cursor_on_value(lnum, key, value)
  local line = api.nvim_buf_get_lines(0, lnum - 1, lnum, false)[1]
  local needle = '"' .. key .. '":"' .. value .. '"'
  local s = line:find(needle, 1, true)
  assert_true(s, string.format('line %d has no %s', lnum, needle))
  local col = s - 1 + #key + 4 -- 0-based byte column of the value's first character
  api.nvim_win_set_cursor(0, { lnum, col })
  return col
end

-- uuid -> line, read from the buffer the way the server sees it.
local function uuid_lines(bufnr)
  local m = {}
  for i, l in ipairs(api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local ok, r = pcall(vim.json.decode, l)
    if ok and type(r) == 'table' and type(r.uuid) == 'string' then
      m[r.uuid] = i
    end
  end
  return m
end

local function line_of(bufnr, pattern)
  for i, l in ipairs(api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if l:find(pattern, 1, true) then
      return i
    end
  end
end

local main_buf, client

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(MAIN))
  main_buf = api.nvim_get_current_buf()

  if not step('filetype jsonl from ftdetect', function()
    eq(vim.bo.filetype, 'jsonl', 'filetype')
  end) then
    return
  end

  if not step('the client starts and attaches (' .. tostring(ccdag._method) .. ')', function()
    wait_for('a ccdag client on the buffer', function()
      client = ccdag.get_client(main_buf)
      return client ~= nil and client.initialized
    end)
    assert_true(client.server_capabilities, 'no server capabilities')
    assert_true(client.server_capabilities.hoverProvider, 'server offers no hover')
    assert_true(client.server_capabilities.definitionProvider, 'server offers no definition')
  end) then
    return
  end

  step('diagnostics: one missing-agent-file at 24 for the calls at 24 27 36 42 51 378 381 551 707, unresolved-logical-parent at 625, nothing else', function()
    wait_for('diagnostics', function()
      return #vim.diagnostic.get(main_buf) > 0
    end)
    local got, other = {}, {}
    for _, d in ipairs(vim.diagnostic.get(main_buf)) do
      if d.code == 'missing-agent-file' then
        -- one diagnostic on the first call (under 120 characters), each call in its related information
        eq(d.lnum + 1, EXPECTED[1], 'line of the missing-agent-file diagnostic')
        assert_true(vim.fn.strchars(d.message) < 120, 'missing-agent-file message of 120 characters or more: ' .. d.message)
        for _, ri in ipairs(((d.user_data or {}).lsp or {}).relatedInformation or {}) do
          table.insert(got, ri.location.range.start.line + 1)
        end
        -- severity = { ['missing-agent-file'] = 'warning' } in setup(); the default is information
        eq(d.severity, vim.diagnostic.severity.WARN, 'severity of missing-agent-file at ' .. (d.lnum + 1))
      elseif d.code ~= 'parent-after-child' then
        table.insert(other, string.format('%d %s', d.lnum + 1, tostring(d.code)))
      end
    end
    table.sort(got)
    eq(got, EXPECTED, 'missing-agent-file lines')
    eq(other, EXPECTED_OTHER, 'other diagnostics')
  end)

  local task_line = line_of(main_buf, '"id":"' .. TASK_ID .. '","name":"Task"')
  local result_line = line_of(main_buf, '"tool_use_id":"' .. TASK_ID .. '"')

  step('hover on the Task call (line ' .. tostring(task_line) .. ')', function()
    assert_true(task_line and result_line, 'Task call or its result not found in the log')
    api.nvim_win_set_cursor(0, { task_line, 0 })
    cursor_on_value(task_line, 'name', 'Task')
    local params = vim.lsp.util.make_position_params()
    local res = ccdag.request_sync(client, 'textDocument/hover', params, TIMEOUT, main_buf)
    assert_true(res and not res.err, 'hover failed: ' .. vim.inspect(res))
    local r = res.result
    assert_true(r and r.contents, 'hover returned nothing')
    local text = table.concat(vim.lsp.util.convert_input_to_markdown_lines(r.contents), '\n')
    assert_true(text:find('Task', 1, true), 'hover does not name the tool: ' .. text)
    assert_true(text:lower():find('action', 1, true), 'hover does not give the workflow kind: ' .. text)
    -- and the way a user sees it: vim.lsp.buf.hover() opens a floating window
    vim.lsp.buf.hover()
    wait_for('the hover window', function()
      for _, w in ipairs(api.nvim_list_wins()) do
        if api.nvim_win_get_config(w).relative ~= '' then
          return true
        end
      end
      return false
    end)
    for _, w in ipairs(api.nvim_list_wins()) do
      if api.nvim_win_get_config(w).relative ~= '' then
        api.nvim_win_close(w, true)
      end
    end
  end)

  step('definition from a tool_use_id value jumps to its call', function()
    cursor_on_value(result_line, 'tool_use_id', TASK_ID)
    vim.lsp.buf.definition()
    wait_for('the jump to line ' .. task_line, function()
      return api.nvim_win_get_cursor(0)[1] == task_line
    end)
    eq(api.nvim_get_current_buf(), main_buf, 'buffer')
    local col = api.nvim_win_get_cursor(0)[2]
    local line = api.nvim_get_current_line()
    local block = line:find('{"type":"tool_use","id":"' .. TASK_ID, 1, true)
    local id_end = line:find(TASK_ID, 1, true) + #TASK_ID
    assert_true(col >= block - 1 and col <= id_end, 'cursor column ' .. col .. ' is not on the tool_use block')
  end)

  local agent_file = vim.fn.fnamemodify(MAIN, ':r') .. '/subagents/agent-' .. AGENT .. '.jsonl'
  local function back_to_main()
    api.nvim_set_current_buf(main_buf)
  end

  step('definition from an agentId value opens the sub-agent log (past CJK text: UTF-16 columns)', function()
    back_to_main()
    cursor_on_value(result_line, 'agentId', AGENT)
    vim.lsp.buf.definition()
    wait_for('agent-' .. AGENT .. '.jsonl', function()
      return api.nvim_buf_get_name(0) == agent_file
    end)
  end)

  step('definition from the Task tool_use opens the sub-agent log', function()
    back_to_main()
    cursor_on_value(task_line, 'name', 'Task')
    vim.lsp.buf.definition()
    wait_for('agent-' .. AGENT .. '.jsonl', function()
      return api.nvim_buf_get_name(0) == agent_file
    end)
    local agent_buf = api.nvim_get_current_buf()
    eq(vim.bo[agent_buf].filetype, 'jsonl', 'sub-agent log filetype')
    wait_for('the same client on the sub-agent log', function()
      local c = ccdag.get_client(agent_buf)
      return c ~= nil and c.id == client.id
    end)
  end)

  step(':CcdagParent on the sub-agent log\'s first record jumps to the spawning call', function()
    api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd('CcdagParent')
    wait_for('main log line ' .. task_line, function()
      return api.nvim_get_current_buf() == main_buf and api.nvim_win_get_cursor(0)[1] == task_line
    end)
  end)

  step(':CcdagParent jumps to the parent record', function()
    back_to_main()
    local uuids = uuid_lines(main_buf)
    local rec = vim.json.decode(api.nvim_buf_get_lines(main_buf, result_line - 1, result_line, false)[1])
    local want = uuids[rec.parentUuid]
    assert_true(want, 'parent of line ' .. result_line .. ' not in the main log')
    api.nvim_win_set_cursor(0, { result_line, 0 })
    vim.cmd('CcdagParent')
    wait_for('line ' .. want, function()
      return api.nvim_win_get_cursor(0)[1] == want
    end)
  end)

  step('vim.lsp.buf.workspace_symbol finds a prompt of the session (workspace symbols)', function()
    back_to_main()
    -- The first prompt, found in the log independently of the server.
    local QUERY = 'skill 頁面模組'
    local want
    for i, l in ipairs(api.nvim_buf_get_lines(main_buf, 0, -1, false)) do
      if l:find('"type":"user"', 1, true) and l:find('頁面模組', 1, true) and l:find('skill', 1, true) then
        want = i
        break
      end
    end
    assert_true(want, 'the log has no such prompt')
    -- the index is built in the background: wait until it answers
    wait_for('the workspace symbol index', function()
      local res = ccdag.request_sync(client, 'workspace/symbol', { query = QUERY }, TIMEOUT, main_buf)
      return res and res.result and #res.result > 0
    end)
    vim.fn.setqflist({}, 'r')
    vim.lsp.buf.workspace_symbol(QUERY)
    local items
    wait_for('the quickfix list', function()
      items = vim.fn.getqflist()
      return #items > 0
    end)
    local item = items[1]
    eq(vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':p'), vim.fn.fnamemodify(MAIN, ':p'), 'file')
    eq(item.lnum, want, 'line')
    assert_true(item.text:find('頁面模組', 1, true), 'symbol text: ' .. item.text)
    vim.cmd('cclose')
    out('     ' .. item.text)
    -- the other project's session: its first prompt, labelled project · title · line
    local erk = vim.fn.fnamemodify(MAIN, ':h:h') .. '/-Users-x-erk/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl'
    local res = ccdag.request_sync(client, 'workspace/symbol', { query = 'erk:plan-implement' }, TIMEOUT, main_buf)
    local hit
    for _, sym in ipairs(res and res.result or {}) do
      if sym.location and vim.uri_to_fname(sym.location.uri) == erk then
        hit = sym
        break
      end
    end
    assert_true(hit, 'no symbol of the second project: ' .. vim.inspect(res))
    assert_true((hit.containerName or ''):find('^%-Users%-x%-erk · /erk:plan%-implement · %d%d%d%d%-%d%d%-%d%d · L%d+$'), 'container: ' .. tostring(hit.containerName))
    out('     ' .. hit.name .. '  (' .. hit.containerName .. ')')
  end)

  local sessions = require('ccdag.sessions')
  local function row_of(st, id)
    for i, s in ipairs(st.list or {}) do
      if s.id == id then
        return s, i + 2, api.nvim_buf_get_lines(st.buf, i + 1, i + 2, false)[1]
      end
    end
  end
  local function wait_done(st, what)
    wait_for(what, function()
      return st.done
    end)
    assert_true(not st.err, 'the list failed: ' .. tostring(st.err))
  end

  step(':CcdagSessions writes a cost as the server does (prices.Nano.String, its test values and VS Code\'s): $0.412, not $0.41', function()
    -- nano-dollars → what the server writes (internal/prices TestNanoString, TestBoundedAmounts;
    -- editors/vscode/test/sessionsFormat.test.mjs); the amount reaches the editor as its dollars
    local cases = {
      { 0, '$0' }, { 50000, '< $0.0001' }, { 100000, '$0.0001' }, { 1200000, '$0.0012' }, { 4200000, '$0.0042' },
      { 10000000, '$0.01' }, { 36300000, '$0.036' }, { 36500000, '$0.036' }, { 62500000, '$0.062' }, { 187500000, '$0.188' },
      { 301000000, '$0.301' }, { 412000000, '$0.412' }, { 420000000, '$0.42' }, { 500000000, '$0.50' }, { 994000000, '$0.994' },
      { 995000000, '$1.00' }, { 4205000000, '$4.21' }, { 4210000000, '$4.21' }, { 5290000000, '$5.29' }, { 12345000000, '$12.35' },
      { 999990000000, '$999.99' }, { 1234400000000, '$1,234' }, { 12345678000000, '$12,346' }, { 1234567000000000, '$1,234,567' },
      { 9223372036854775807, '$9,223,372,037' },
    }
    for _, c in ipairs(cases) do
      eq(sessions.dollars(c[1] / 1e9), c[2], string.format('%d nano-dollars', c[1]))
    end
    -- in a row: the figure, "≥ " when it is a lower bound, "unpriced" for a model the table lacks
    local row = { id = 'x', title = 't', tokens = {} }
    for _, c in ipairs({
      { { usd = 0.412, priced = 3, unpriced = 0 }, '$0.412' },
      { { usd = 0.301, priced = 3, unpriced = 1 }, '≥ $0.301' },
      { { usd = 5.29, priced = 3, unpriced = 0, lowerBound = true }, '≥ $5.29' },
      { { usd = 0.00005, priced = 1, unpriced = 0 }, '< $0.0001' },
      { { usd = 0, priced = 0, unpriced = 2 }, 'unpriced' },
    }) do
      row.cost = c[1]
      local line = sessions.label(row)
      assert_true(line:find('  ' .. c[2] .. ' ', 1, true), 'the cost ' .. vim.inspect(c[1]) .. ' is not "' .. c[2] .. '" in: ' .. line)
    end
  end)

  step(':CcdagSessions returns at once and fills as the rows stream in (400+ sessions, cold cache); keys work meanwhile; the rows read as a person reads them', function()
    -- overdue: a session whose log was last written 60 days ago (cleanupPeriodDays 30) is deleted
    -- by Claude Code at its next start
    local erk_path = vim.fn.fnamemodify(MAIN, ':h:h') .. '/-Users-x-erk/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl'
    local old = os.time() - 60 * 86400
    vim.loop.fs_utime(erk_path, old, old)
    -- a session where nothing was said (a snapshot only): dimmed
    local empty_id = '77777777-7777-4777-8777-777777777777'
    vim.fn.writefile({ '{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2026-01-01T00:00:00.000Z"},"isSnapshotUpdate":false}' },
      vim.fn.fnamemodify(MAIN, ':h') .. '/' .. empty_id .. '.jsonl')
    local t0 = vim.loop.hrtime()
    vim.cmd('CcdagSessions')
    local t_ret = vim.loop.hrtime()
    local st = sessions.state
    assert_true(st and api.nvim_get_current_buf() == st.buf, 'no browser buffer')
    -- the command returned before any answer: nothing blocked the editor while it asks
    assert_true(not st.done and st.batches == 0, 'the list was answered before the command returned')
    -- a key works at once (G: the last line), and the list fills meanwhile
    api.nvim_feedkeys('G', 'x', false)
    eq(api.nvim_win_get_cursor(0)[1], api.nvim_buf_line_count(st.buf), 'cursor after G')
    local partial = {}
    wait_for('the first rows', function()
      return st.batches > 0
    end)
    table.insert(partial, api.nvim_buf_line_count(st.buf) - 2)
    wait_done(st, 'the whole list')
    local total = #st.list
    assert_true(total >= 403, 'rows: ' .. total)
    assert_true(st.batches >= 2, 'rows came in ' .. st.batches .. ' batch(es)')
    assert_true(partial[1] > 0 and partial[1] < total, 'the first batch showed ' .. partial[1] .. ' rows of ' .. total)
    eq(api.nvim_buf_line_count(st.buf) - 2, total, 'rows in the buffer')
    out(string.format('     %d sessions: :CcdagSessions returned in %.0f ms, first %d rows at %.0f ms, all at %.0f ms, %d batches (load %s)',
      total, (t_ret - t0) / 1e6, partial[1], (st.t_first - t0) / 1e6, (st.t_done - t0) / 1e6, st.batches,
      (vim.fn.readfile('/proc/loadavg')[1] or '?'):match('^%S+')))
    -- rows: the folder the session ran in (its cwd, ~), local time (TZ=Asia/Taipei: UTC+8), the
    -- deletion where it is not cut off, overdue said as such, a figure lower bound as ≥
    local main, _, line = row_of(st, '87bcc603-30fb-432c-beb2-9c774a335172')
    assert_true(main, 'no row of the session')
    eq(main.project, '~/Desktop/project/webtech-monorepo', 'project')
    local deleted = os.date('%Y-%m-%d', vim.loop.fs_stat(MAIN).mtime.sec + 30 * 86400)
    local want = '2026-02-01 03:22  ' .. deleted
    assert_true(line:sub(1, #want) == want, 'the row starts ' .. line:sub(1, 40) .. ', want ' .. want)
    for _, part in ipairs({ 'webtech-monorepo', '≥ 90 · 5.3M', '$6.33', '✓', 'findings', '我發現claude code skill' }) do
      assert_true(line:find(part, 1, true), 'no ' .. part .. ' in ' .. line)
    end
    out('     ' .. line)
    local erk, _, eline = row_of(st, '1b2fa935-2b3c-47c3-a234-caee199c619b')
    assert_true(erk and erk.overdue == true, 'the old session is not overdue: ' .. vim.inspect(erk and { erk.deletes, erk.overdue }))
    assert_true(eline:find('at next start', 1, true), 'the overdue row: ' .. eline)
    out('     ' .. eline)
    local empty, erow = row_of(st, empty_id)
    assert_true(empty and empty.empty == true, 'the empty session: ' .. vim.inspect(empty))
    local dim = false
    for _, m in ipairs(api.nvim_buf_get_extmarks(st.buf, api.nvim_get_namespaces()['ccdag_sessions'], { erow - 1, 0 }, { erow - 1, -1 }, { details = true })) do
      dim = dim or m[4].hl_group == 'Comment'
    end
    assert_true(dim, 'the empty session is not dimmed')
    vim.loop.fs_utime(erk_path, os.time(), os.time())
    -- <CR> on the session's row opens its log in the window :CcdagSessions came from; the browser goes
    local _, at = row_of(st, '87bcc603-30fb-432c-beb2-9c774a335172')
    api.nvim_win_set_cursor(0, { at, 0 })
    api.nvim_feedkeys(api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    eq(vim.fn.resolve(api.nvim_buf_get_name(0)), vim.fn.resolve(MAIN), 'the buffer after <CR>')
    assert_true(sessions.state == nil and not api.nvim_buf_is_valid(st.buf), 'the browser is still open')
    api.nvim_set_current_buf(main_buf)
  end)

  step(':CcdagSessions filters by what the records hold (the server\'s query), not titles alone; q and <Esc> close it', function()
    back_to_main()
    vim.cmd('CcdagSessions')
    local st = sessions.state
    wait_done(st, 'the list')
    -- "vsaas-device" is in a thinking block of the session, not in its title
    sessions.filter('vsaas-device')
    assert_true(not st.done, 'the filter was answered before it returned')
    wait_done(st, 'the filtered list')
    local ids = {}
    for _, s in ipairs(st.list) do
      table.insert(ids, s.id)
    end
    eq(ids, { '87bcc603-30fb-432c-beb2-9c774a335172' }, 'sessions holding "vsaas-device"')
    local header = api.nvim_buf_get_lines(st.buf, 0, 1, false)[1]
    assert_true(header:find('filter: "vsaas-device"', 1, true), 'the header does not say the filter')
    assert_true(header:find('— 1 session ', 1, true), 'the header of one session: ' .. header)
    -- one finding, and two, as a row says them
    local row = vim.deepcopy(st.list[1])
    for n, want in pairs({ [1] = '  1 finding  ', [2] = '  2 findings  ' }) do
      row.findings = { error = 0, warning = n - 1, information = 1, hint = 0 }
      local label = sessions.label(row)
      assert_true(label:find(want, 1, true), 'a row of ' .. n .. ' finding(s): ' .. label)
    end
    sessions.filter('erk:plan-implement nothing-holds-this-word')
    wait_done(st, 'the list for two words')
    eq(#st.list, 0, 'sessions holding both words')
    -- as a person does it: / then Esc keeps the filter; / with the line emptied clears it (0.7's
    -- vim.ui.input gave nil for an empty line, as for a cancel: the filter stayed)
    local keys = function(k)
      api.nvim_feedkeys(api.nvim_replace_termcodes(k, true, false, true), 'xt', false)
    end
    keys('/<Esc>')
    eq(st.query, 'erk:plan-implement nothing-holds-this-word', 'the filter after / and <Esc>')
    keys('/<C-u><CR>')
    eq(st.query, '', 'the filter after / and an empty line')
    wait_done(st, 'the list without a filter')
    assert_true(#st.list > 1, 'the filter was not cleared: ' .. #st.list .. ' sessions')
    header = api.nvim_buf_get_lines(st.buf, 0, 1, false)[1]
    assert_true(not header:find('filter:', 1, true), 'the header still says a filter: ' .. header)
    api.nvim_feedkeys('q', 'x', false)
    assert_true(sessions.state == nil and not api.nvim_buf_is_valid(st.buf), 'q did not close the browser')
    vim.cmd('CcdagSessions')
    st = sessions.state
    api.nvim_feedkeys(api.nvim_replace_termcodes('<Esc>', true, false, true), 'x', false)
    assert_true(sessions.state == nil and not api.nvim_buf_is_valid(st.buf), '<Esc> did not close the browser')
    api.nvim_set_current_buf(main_buf)
  end)

  step(':CcdagGraph text shows lanes, kinds, the spawn, and <CR> jumps', function()
    back_to_main()
    -- no $DISPLAY here: plain :CcdagGraph ('auto') would show the text too
    assert_true(not graph._browser_available(), 'a browser is thought available without a display')
    vim.cmd('CcdagGraph text')
    local gbuf
    wait_for('the graph buffer', function()
      local b = api.nvim_get_current_buf()
      if api.nvim_buf_get_name(b):find('ccdag://graph/', 1, true) then
        gbuf = b
        return true
      end
      return false
    end)
    local lines = api.nvim_buf_get_lines(gbuf, 0, -1, false)
    local text = table.concat(lines, '\n')
    assert_true(text:find('\n== main', 1, true), 'no main lane')
    assert_true(text:find('agent-' .. AGENT, 1, true), 'no lane for agent ' .. AGENT)
    for _, mark in ipairs({ '[U]', '[T]', '[A]', '[O]' }) do
      assert_true(text:find(mark, 1, true), 'no ' .. mark .. ' node')
    end
    assert_true(text:find('↳', 1, true), 'no fork indentation')
    -- the Task call's line: <CR> jumps to it in the log
    local row
    for i, l in ipairs(lines) do
      if l:match('^%s*' .. task_line .. ' ') and l:find('[A]', 1, true) then
        row = i
        break
      end
    end
    assert_true(row, 'no [A] node at line ' .. task_line .. ' in:\n' .. text:sub(1, 3000))
    assert_true(lines[row]:find('⇒', 1, true), 'the Task node does not show its spawn: ' .. lines[row])
    api.nvim_win_set_cursor(0, { row, 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    wait_for('the jump back to line ' .. task_line, function()
      return api.nvim_get_current_buf() == main_buf and api.nvim_win_get_cursor(0)[1] == task_line
    end)
    if vim.env.CCDAG_GRAPH_DUMP then
      vim.fn.writefile(lines, vim.env.CCDAG_GRAPH_DUMP)
    end
    out('     graph buffer: ' .. #lines .. ' lines, e.g.')
    for i = 1, math.min(#lines, 12) do
      out('       ' .. lines[i])
    end
  end)

  step(':CcdagGraph html writes the picture (ccdag graph --format html, no browser here)', function()
    back_to_main()
    graph.last_html = nil
    vim.cmd('CcdagGraph html')
    wait_for('the HTML file', function()
      return graph.last_html ~= nil or graph.last_html_error ~= nil
    end)
    assert_true(graph.last_html, 'ccdag graph --format html failed: ' .. tostring(graph.last_html_error))
    local f = io.open(graph.last_html, 'r')
    assert_true(f, 'cannot read ' .. graph.last_html)
    local html = f:read('*a')
    f:close()
    assert_true(html:lower():find('<html', 1, true), 'not an HTML file')
  end)

  local transcript_buf
  step(':CcdagTranscript opens the transcript; <CR> jumps to the log line', function()
    back_to_main()
    vim.cmd('CcdagTranscript')
    local tbuf = api.nvim_get_current_buf()
    transcript_buf = tbuf
    assert_true(tbuf ~= main_buf, 'no transcript buffer')
    wait_for('the transcript text', function()
      return api.nvim_buf_line_count(tbuf) > 20
    end)
    local lines = api.nvim_buf_get_lines(tbuf, 0, -1, false)
    local turn
    for i, l in ipairs(lines) do
      if l:find('^## Turn 2 ') then
        turn = i
        break
      end
    end
    assert_true(turn, 'no "## Turn 2" heading')
    -- the prompt as quoted Markdown text, not a code box
    eq(lines[turn + 1], '', 'line after the heading')
    assert_true(lines[turn + 2]:match('^> ') and not lines[turn + 2]:find('```', 1, true), 'the prompt is not quoted text: ' .. lines[turn + 2])
    assert_true(not vim.bo[tbuf].modifiable, 'the transcript buffer is modifiable')
    -- text, not Markdown source: no link targets, escapes, ** or <details>
    local text = table.concat(lines, '\n')
    for _, src in ipairs({ '](<file:', '\\-', '\\.', '**Files:**', '<details>', '</summary>' }) do
      assert_true(not text:find(src, 1, true), 'Markdown source ' .. src .. ' in the transcript')
    end
    assert_true(text:find('\n▸ thinking (L4)\n', 1, true), 'no "▸ thinking (L4)" line')
    assert_true(text:find('- vsaas-device\n', 1, true), 'an escaped list line is not plain: ' .. (text:match('[^\n]*vsaas.device[^\n]*') or ''))
    local want = tonumber(lines[turn]:match('%[L(%d+)%]'))
    api.nvim_win_set_cursor(0, { turn, 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    eq(api.nvim_get_current_buf(), main_buf, 'buffer after <CR>')
    eq(api.nvim_win_get_cursor(0)[1], want, 'log line after <CR>')
    out('     Turn 2 -> line ' .. want)
  end)

  -- The transcript's Markdown puts log text as prose (internal/mdsafe/text.go: every ASCII
  -- punctuation character backslash-escaped, a line break a trailing backslash), in fenced blocks
  -- (code, as logged), and the server's own lines; a sub-agent's lines are all quoted ('  > ').
  -- check_plain holds the transcript buffer of a log to the server's Markdown, line for line, and
  -- counts what it checked.
  local function punct(b) -- what mdsafe escapes
    return (b >= 33 and b <= 47) or (b >= 58 and b <= 64) or (b >= 91 and b <= 96) or (b >= 123 and b <= 126)
  end
  -- prose: every punctuation character escaped; a lone backslash only at the end (a line break)
  local function prose(s)
    local i = 1
    while i <= #s do
      local b = s:byte(i)
      if b == 92 and i < #s and punct(s:byte(i + 1)) then
        i = i + 2
      elseif punct(b) and not (b == 92 and i == #s) then
        return false
      else
        i = i + 1
      end
    end
    return true
  end
  local function escape(s)
    return (s:gsub('.', function(c)
      return punct(c:byte()) and '\\' .. c or c
    end))
  end
  local function check_plain(log, tbuf)
    local res = ccdag.request_sync(ccdag.get_client(log), 'ccdag/transcript', { textDocument = { uri = vim.uri_from_bufnr(log) }, allBranches = false }, TIMEOUT, log)
    assert_true(res and res.result and res.result.markdown, 'no transcript: ' .. vim.inspect(res))
    local md = vim.split(res.result.markdown, '\n', { plain = true })
    if md[#md] == '' then
      table.remove(md)
    end
    wait_for('the transcript of ' .. #md .. ' lines', function()
      return api.nvim_buf_line_count(tbuf) == #md
    end)
    local shown = api.nvim_buf_get_lines(tbuf, 0, -1, false)
    local fence -- the open fence's prefix and backticks
    local n = { prose = 0, quoted_prose = 0, quoted_escapes = 0, code = 0, quoted_fences = 0, quoted_details = 0 }
    for i, m in ipairs(md) do
      local p, rest = m:match('^([ >]*)(.*)$')
      local got, at = shown[i], string.format('line %d: %q shown as %q', i, m, shown[i])
      local quoted = p:find('>', 1, true) ~= nil
      local open = rest:match('^(```+)text$')
      if fence and m == fence then
        fence = nil
        assert_true(got:match('^[ >]*$'), 'a closing fence shown, ' .. at)
      elseif fence then
        n.code = n.code + 1
        eq(got, m, 'code, ' .. at)
      elseif open then
        fence = p .. open
        n.quoted_fences = n.quoted_fences + (quoted and 1 or 0)
        assert_true(got:match('^[ >]*$'), 'an opening fence shown, ' .. at)
      elseif prose(rest) then
        -- as written (a log's text may hold ``` or <details>): escaped again, it is the Markdown
        assert_true(got:sub(1, #p) == p, 'the quote prefix lost, ' .. at)
        local brk = #rest:match('\\*$') % 2 == 1 and '\\' or '' -- an odd run: the last one a break
        eq(escape(got:sub(#p + 1)) .. brk, rest, 'prose, ' .. at)
        n.prose = n.prose + 1
        if quoted then
          n.quoted_prose = n.quoted_prose + 1
          n.quoted_escapes = n.quoted_escapes + select(2, rest:gsub('\\[\\%]^_]', ''))
        end
      else -- the server's own lines
        for _, tag in ipairs({ '<details>', '<summary>', '</summary>', '</details>', '```' }) do
          assert_true(not got:find(tag, 1, true), tag .. ' shown, ' .. at)
        end
        local summary = rest:match('^<details><summary>(.*)</summary>$')
        if summary then
          n.quoted_details = n.quoted_details + (quoted and 1 or 0)
          eq(got, p .. '▸ ' .. summary, 'a thinking block\'s line, ' .. at)
        end
      end
    end
    out('     ' .. vim.inspect(n):gsub('%s+', ' '))
    return n
  end

  step(':CcdagTranscript is text line for line, a sub-agent\'s quoted lines too: prose escapes undone, code as logged, no fence line', function()
    assert_true(transcript_buf and api.nvim_buf_is_valid(transcript_buf), 'no transcript buffer')
    local n = check_plain(main_buf, transcript_buf)
    -- what this session holds: a sub-agent's replies (escapes of \ ] ^ _ among them) and results
    assert_true(n.quoted_prose > 0 and n.quoted_escapes > 0 and n.quoted_fences > 0 and n.code > 0, 'nothing quoted checked')
  end)

  step(':CcdagTranscript: a sub-agent\'s thinking reads "▸ thinking (Ln)" in its quote', function()
    -- the live fixture as another session whose sub-agent thinks before it answers (no corpus
    -- session has that), the thought holding characters an escape hid
    local id = '33333333-3333-4333-8333-333333333333'
    local src = vim.env.CCDAG_TEST_LIVE .. '/22222222-2222-4222-8222-222222222222'
    local dir = vim.fn.fnamemodify(MAIN, ':h:h') .. '/think'
    local function copy(from, to, edit)
      local lines = vim.fn.readfile(from)
      for i, l in ipairs(lines) do
        lines[i] = (edit or function(x) return x end)(l:gsub('22222222%-2222%-4222%-8222%-222222222222', id))
      end
      vim.fn.mkdir(vim.fn.fnamemodify(to, ':h'), 'p')
      vim.fn.writefile(lines, to)
    end
    local answer = '{"type":"text","text":"Three packages."}'
    local thought = [[{"type":"thinking","thinking":"Count them: go_list \\ [a] ^b","signature":"c2ln"},]]
    copy(src .. '.jsonl', dir .. '/' .. id .. '.jsonl')
    copy(src .. '/subagents/agent-a5b6c7d8e9f0a1b2c.jsonl', dir .. '/' .. id .. '/subagents/agent-a5b6c7d8e9f0a1b2c.jsonl', function(l)
      return (l:gsub(vim.pesc(answer), function(a) return thought .. a end))
    end)
    copy(src .. '/subagents/agent-a5b6c7d8e9f0a1b2c.meta.json', dir .. '/' .. id .. '/subagents/agent-a5b6c7d8e9f0a1b2c.meta.json')
    vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/' .. id .. '.jsonl'))
    local log = api.nvim_get_current_buf()
    wait_for('the server on the session', function()
      local c = ccdag.get_client(log)
      return c ~= nil and vim.lsp.buf_is_attached(log, c.id)
    end)
    local tbuf = require('ccdag.reading').transcript(false)
    local n = check_plain(log, tbuf)
    assert_true(n.quoted_details > 0 and n.quoted_escapes > 0, 'no quoted thought checked')
    vim.cmd('bwipeout ' .. tbuf)
    vim.cmd('bwipeout ' .. log)
    back_to_main()
  end)

  -- :CcdagResume shows what `ccdag resume` prints, line for line, and the figures of its --format
  -- json; <CR> on a record's line goes to it in the log.
  local function cli(args, path)
    local cmd = 'ccdag resume ' .. args .. ' ' .. vim.fn.shellescape(path) .. ' 2>/dev/null'
    return vim.fn.system(cmd)
  end
  local function resume_step(name, flags, drops)
    step(name, function()
      local log = api.nvim_get_current_buf()
      local path = api.nvim_buf_get_name(log)
      local want = vim.split(cli(flags, path), '\n', { plain = true })
      if want[#want] == '' then
        table.remove(want)
      end
      local json = vim.json.decode(cli('--format json ' .. flags, path))
      vim.cmd('CcdagResume')
      local pbuf = api.nvim_get_current_buf()
      assert_true(pbuf ~= log, 'no preview buffer')
      local got
      wait_for('the preview text (as `ccdag resume ' .. flags .. '`)', function()
        got = api.nvim_buf_get_lines(pbuf, 0, -1, false)
        return vim.deep_equal(got, want)
      end, 20000)
      assert_true(not vim.bo[pbuf].modifiable, 'the preview buffer is modifiable')
      local text = table.concat(got, '\n')
      local loader = json.resume.loader
      assert_true(got[1]:find('as Claude Code ' .. loader.version .. ' will load it', 1, true), 'no loader in ' .. got[1])
      assert_true(text:find(string.format('\n%d records sent of %d on the chain', #json.chain, json.resume.records), 1, true), 'no "N records sent of M"')
      if drops then
        eq(#json.dropped, drops, 'dropped by the CLI')
      end
      local targets = { json.chain[#json.chain].line }
      for _, d in ipairs(json.dropped) do
        local shown = false
        for _, l in ipairs(got) do
          if l:match('^ +' .. d.line .. '  ') and l:find(d.what, 1, true) and l:sub(-#d.id) == d.id then
            shown = true
          end
        end
        assert_true(shown, 'dropped not shown: ' .. vim.inspect(d))
        table.insert(targets, d.line)
      end
      for _, want_line in ipairs(targets) do
        api.nvim_set_current_win(vim.fn.bufwinid(pbuf))
        local at
        for i = #got, 1, -1 do
          if got[i]:match('^ +' .. want_line .. '  ') then
            at = i
            break
          end
        end
        assert_true(at, 'no line for ' .. want_line)
        api.nvim_win_set_cursor(0, { at, 0 })
        api.nvim_feedkeys(api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
        eq(api.nvim_get_current_buf(), log, 'buffer after <CR>')
        eq(api.nvim_win_get_cursor(0)[1], want_line, 'log line after <CR>')
      end
      out(string.format('     loader %s (%s), %d sent of %d, %d dropped', loader.version, loader.from, #json.chain, json.resume.records, #json.dropped))
      api.nvim_set_current_win(vim.fn.bufwinid(pbuf))
      vim.cmd('close')
      api.nvim_set_current_buf(log)
    end)
  end
  back_to_main()
  resume_step(':CcdagResume with setup({claude_version = "2.1.30"}): the text and figures of `ccdag resume --claude-version 2.1.30`; <CR> jumps', '--claude-version 2.1.30')
  local rclient = ccdag.get_client(main_buf)
  rclient.config.settings.ccdag.claudeVersion = ''
  if vim.fn.has('nvim-0.11') == 1 then
    rclient:notify('workspace/didChangeConfiguration', { settings = rclient.config.settings })
  else
    rclient.notify('workspace/didChangeConfiguration', { settings = rclient.config.settings })
  end
  resume_step(':CcdagResume after claudeVersion "" (didChangeConfiguration): as `ccdag resume`', '')
  do
    local fixture = vim.fn.fnamemodify(MAIN, ':h') .. '/resume-pairing.jsonl'
    vim.fn.writefile(vim.fn.readfile(vim.env.CCDAG_NVIM_PLUGIN .. '/../../internal/resume/testdata/pairing.jsonl', 'b'), fixture, 'b')
    vim.cmd('edit ' .. vim.fn.fnameescape(fixture))
    local fbuf = api.nvim_get_current_buf()
    local ok = vim.wait(TIMEOUT, function()
      return ccdag.get_client(fbuf) ~= nil
    end, 20)
    if ok then
      resume_step(':CcdagResume on a log with a call without result and a result without call: both dropped', '', 2)
    else
      step(':CcdagResume on a log with two dropped records', function()
        error('no ccdag client on ' .. fixture)
      end)
    end
    back_to_main()
  end

  step('code lens (vim.lsp.codelens) and inlay hints (virtual text before 0.10) on the log', function()
    back_to_main()
    api.nvim_win_set_cursor(0, { 1, 0 })
    local lenses
    wait_for('code lenses', function()
      lenses = vim.lsp.codelens.get(main_buf)
      return lenses and #lenses > 3
    end)
    local titles = {}
    for _, l in ipairs(lenses) do
      table.insert(titles, l.command and l.command.title or '?')
    end
    local all = table.concat(titles, ' | ')
    assert_true(all:find('Open Transcript', 1, true) and all:find('tool call', 1, true), 'lenses: ' .. all)
    if vim.fn.has('nvim-0.10') == 0 then
      local ns = api.nvim_get_namespaces()['ccdag_hints']
      wait_for('inlay hints as virtual text', function()
        return #api.nvim_buf_get_extmarks(main_buf, ns, 0, -1, {}) > 0
      end)
      -- where a person sees them: after a line only when line and figure fit in the window, else
      -- on a virtual line right below the record; this log's lines are long
      local width = api.nvim_win_get_width(0)
      local function check_placed(marks, what)
        local eol, above, below = 0, 0, 0
        for _, m in ipairs(marks) do
          local line = api.nvim_buf_get_lines(main_buf, m[2], m[2] + 1, false)[1]
          local d = m[4]
          if d.virt_lines then
            assert_true(#line + 10 > width, what .. ' on a virtual line for the short line ' .. (m[2] + 1))
            eq(d.virt_lines_above or false, false, what .. ' below line ' .. (m[2] + 1))
            eq(d.virt_lines[1][1][1], '↑ ', what .. ' points to its record')
            below = below + 1
          else
            assert_true(d.virt_text and vim.fn.strdisplaywidth(line) < width, what .. ' after the long line ' .. (m[2] + 1) .. ' (' .. #line .. ' bytes)')
            eol = eol + 1
          end
        end
        return eol, above, below
      end
      local marks = api.nvim_buf_get_extmarks(main_buf, ns, 0, -1, { details = true })
      local e, a, b = check_placed(marks, 'hint')
      assert_true(b > 0, 'no hint on a line of its own under a long line')
      local lns = vim.lsp.codelens.__namespaces[client.id]
      local lmarks
      wait_for('lenses drawn', function()
        lmarks = api.nvim_buf_get_extmarks(main_buf, lns, 0, -1, { details = true })
        return #lmarks > 1
      end)
      local le, la, lb = check_placed(lmarks, 'lens')
      assert_true(lb > 0, 'no lens on a line of its own under a long line')
      local first = (marks[1][4].virt_lines and marks[1][4].virt_lines[1] or marks[1][4].virt_text)
      out(string.format('     %d lenses (%d eol, %d above, %d below), %d hints (%d eol, %d above, %d below); first hint %q',
        #lmarks, le, la, lb, #marks, e, a, b, first[#first][1]))
    end
  end)

  -- The figures (a session's, a turn's) are lenses with an empty command: shown, nothing to run.
  step(':CcdagLens runs the lenses that have a command; on a turn\'s line (figures only) it says there is nothing to run', function()
    back_to_main()
    local res = ccdag.request_sync(client, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(main_buf) } }, TIMEOUT, main_buf)
    assert_true(res and res.result, 'no lenses: ' .. vim.inspect(res))
    local runnable, figures_only = {}, nil
    local by_line = {}
    for _, l in ipairs(res.result) do
      local line = l.range.start.line
      by_line[line] = by_line[line] or { run = 0 }
      if l.command and (l.command.command or '') ~= '' then
        by_line[line].run = by_line[line].run + 1
        if line == 0 then
          table.insert(runnable, l.command)
        end
      end
    end
    for line, b in pairs(by_line) do
      if b.run == 0 and line > 0 and (not figures_only or line < figures_only) then
        figures_only = line
      end
    end
    assert_true(#runnable > 1 and figures_only, 'no first line with commands and turn line with figures: ' .. vim.inspect(by_line))
    local said, notify = {}, vim.notify
    vim.notify = function(msg, level)
      table.insert(said, msg)
      return notify(msg, level)
    end
    local select, offered = vim.ui.select, nil
    vim.ui.select = function(items, opts, on_choice)
      offered = {}
      for _, item in ipairs(items) do
        table.insert(offered, opts.format_item(item))
      end
      for _, item in ipairs(items) do
        if item.command == 'ccdag.showWorkflowGraph' then
          return on_choice(item)
        end
      end
      on_choice(nil)
    end
    local ok, err = pcall(function()
      api.nvim_win_set_cursor(0, { figures_only + 1, 0 })
      vim.cmd('CcdagLens')
      wait_for('what :CcdagLens says on line ' .. (figures_only + 1), function()
        return #said > 0
      end)
      eq(said, { 'ccdag: nothing to run on this line: its code lenses only show figures' }, 'said on a turn\'s line')
      assert_true(not offered, 'a choice offered on a turn\'s line: ' .. vim.inspect(offered))
      -- the first line: the lenses with a command are offered, and the one chosen runs
      said = {}
      api.nvim_win_set_cursor(0, { 1, 0 })
      vim.cmd('CcdagLens')
      wait_for('the graph of the chosen lens', function()
        return api.nvim_buf_get_name(0):find('ccdag://graph/', 1, true) ~= nil
      end)
      local titles = {}
      for _, c in ipairs(runnable) do
        table.insert(titles, c.title)
      end
      eq(offered, titles, 'lenses offered on the first line')
      eq(said, {}, 'said on the first line')
    end)
    vim.notify, vim.ui.select = notify, select
    if api.nvim_buf_get_name(0):find('ccdag://graph/', 1, true) then
      vim.cmd('close')
    end
    back_to_main()
    assert_true(ok, err)
  end)

  step('folds from the server\'s ranges (foldexpr, 0.7 too): a turn, its steps, a sub-agent\'s steps inside its call; the compaction stays visible', function()
    back_to_main()
    local folds = require('ccdag.folds')
    local ranges
    folds.refresh(main_buf, function(r)
      ranges = r
    end)
    wait_for('folding ranges', function()
      return ranges ~= nil
    end)
    eq(vim.wo.foldmethod, 'expr', 'foldmethod')
    -- By hand, in this log: the first turn's prompt is line 3 and it runs to 518 (the next prompt
    -- is 519); the Agent call at 51 runs, with 254 progress records of its sub-agent, to 313; the
    -- sub-agent speaks first at 54 (its prompt at 53), its first step 54-55.
    eq(vim.fn.foldlevel(3), 1, 'fold level of the first prompt')
    eq(vim.fn.foldlevel(52), 2, 'fold level inside the Agent call\'s step')
    eq(vim.fn.foldlevel(54), 3, 'fold level of the sub-agent\'s first step')
    local boundary = line_of(main_buf, '"subtype":"compact_boundary"')
    eq(boundary, 625, 'compaction boundary line')
    vim.cmd('normal! zM')
    eq(vim.fn.foldclosed(3), 3, 'the first turn folds from its prompt')
    eq(vim.fn.foldclosedend(3), 518, 'the first turn ends before the next prompt')
    local fc = vim.fn.foldclosed(boundary)
    assert_true(fc == -1 or fc == boundary, 'the compaction boundary is inside a fold starting at ' .. fc)
    vim.cmd('normal! zR')
    local top = 0
    for _, r in ipairs(ranges) do
      if r.endLine - r.startLine > 100 then
        top = top + 1
      end
    end
    out(string.format('     %d folds, %d of them over 100 lines; compaction at %d visible', #ranges, top, boundary))
  end)

  -- What a person sees: the screen, read back from Neovim's grid (headless too).
  local function screen_rows()
    vim.cmd('redraw!')
    local rows = {}
    for r = 1, vim.o.lines - 1 do
      local t = {}
      for c = 1, vim.o.columns do
        table.insert(t, vim.fn.screenstring(r, c))
      end
      rows[r] = table.concat(t)
    end
    return rows
  end

  step('zc on a turn folds it to one line that says what it holds (turn, prompt, figures), never a blank line', function()
    back_to_main()
    vim.cmd('only')
    vim.cmd('normal! zR')
    api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd('normal! zt')
    -- the figures of the line above the turn (the hint of line 2, too long for its end) first
    local reading = require('ccdag.reading')
    local hints = api.nvim_get_namespaces()['ccdag_hints']
    if vim.fn.has('nvim-0.10') == 0 then
      reading.refresh_hints(main_buf)
      wait_for('the hint of line 2', function()
        return #api.nvim_buf_get_extmarks(main_buf, hints, { 1, 0 }, { 1, 0 }, {}) > 0
      end)
    end
    api.nvim_win_set_cursor(0, { 3, 0 })
    api.nvim_feedkeys('zc', 'x', false) -- as typed: the plugin's mapping, if any, runs
    eq(vim.fn.foldclosed(3), 3, 'the first turn is closed')
    eq(vim.fn.foldclosedend(3), 518, 'the first turn ends before the next prompt')
    local text = vim.fn.foldtextresult(3)
    assert_true(text:find('turn 1 · 我發現claude code skill', 1, true) and text:find('32 tool calls', 1, true) and text:find('(516 lines)', 1, true), 'fold text: ' .. text)
    local rows = screen_rows()
    local shown
    for r, row in ipairs(rows) do
      if row:find('turn 1 ·', 1, true) then
        shown = r
      end
    end
    assert_true(shown, 'the closed turn is not on the screen:\n' .. table.concat(rows, '\n'))
    assert_true(rows[shown]:find('%+%-+ turn 1 ·'), 'the fold line: ' .. rows[shown])
    out('     ' .. vim.trim(rows[shown]))
    -- zM then zR: every closed fold shows its text on the screen
    api.nvim_feedkeys('zM', 'x', false)
    rows = screen_rows()
    for _, row in ipairs(rows) do
      assert_true(not row:match('^%s*$'), 'a blank line on the screen after zM:\n' .. table.concat(rows, '\n'))
    end
    api.nvim_feedkeys('zR', 'x', false)
    eq(vim.fn.foldclosed(3), -1, 'the first turn after zR')
  end)

  step('gd where nothing is defined says why (the server\'s window/showMessage)', function()
    back_to_main()
    local said = {}
    local orig = vim.lsp.handlers['window/showMessage']
    vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, config)
      table.insert(said, result.message)
      return orig(err, result, ctx, config)
    end
    api.nvim_win_set_cursor(0, { 3, 0 }) -- the first prompt's '{': no id at the cursor
    vim.lsp.buf.definition()
    local ok = vim.wait(TIMEOUT, function()
      return #said > 0
    end, 20)
    vim.lsp.handlers['window/showMessage'] = orig
    assert_true(ok, 'gd said nothing')
    eq(said[1], 'ccdag: no definition: no parentUuid, tool_use_id or agentId at the cursor', 'the reason')
    eq(api.nvim_win_get_cursor(0)[1], 3, 'the cursor moved')
    out('     ' .. said[1])
  end)

  step('an appended record (live session, incremental sync) gets its diagnostic', function()
    back_to_main()
    local n = api.nvim_buf_line_count(main_buf)
    local rec = string.format(
      '{"parentUuid":"%s","isSidechain":false,"type":"user","message":{"role":"user","content":"再来一次 🙂"},"uuid":"%s","timestamp":"2026-02-01T00:00:00.000Z","sessionId":"87bcc603-30fb-432c-beb2-9c774a335172"}',
      'no-such-parent-0000', 'appended-0000')
    api.nvim_buf_set_lines(main_buf, n, n, false, { rec })
    wait_for('an orphan diagnostic on line ' .. (n + 1), function()
      for _, d in ipairs(vim.diagnostic.get(main_buf)) do
        if d.code == 'orphan' and d.lnum == n then
          return true
        end
      end
      return false
    end)
    local missing = 0
    for _, d in ipairs(vim.diagnostic.get(main_buf)) do
      if d.code == 'missing-agent-file' then
        missing = missing + 1
      end
    end
    eq(missing, 1, 'missing-agent-file diagnostics after the edit (one for the session)')
    -- undo it: the orphan goes away again
    api.nvim_buf_set_lines(main_buf, n, n + 1, false, {})
    wait_for('the orphan to go', function()
      for _, d in ipairs(vim.diagnostic.get(main_buf)) do
        if d.code == 'orphan' then
          return false
        end
      end
      return true
    end)
  end)

  step('quick fix: vim.lsp.buf.code_action() re-parents an orphan (the edit is in the buffer, nothing on disk)', function()
    back_to_main()
    local disk = io.open(MAIN, 'r'):read('*a')
    local n = api.nvim_buf_line_count(main_buf)
    local rec = '{"parentUuid":"no-such-parent-0001","isSidechain":false,"type":"user","message":{"role":"user","content":"fix me"},"uuid":"appended-0001","timestamp":"2026-02-01T00:00:00.000Z","sessionId":"87bcc603-30fb-432c-beb2-9c774a335172"}'
    api.nvim_buf_set_lines(main_buf, n, n, false, { rec })
    wait_for('an orphan diagnostic on line ' .. (n + 1), function()
      for _, d in ipairs(vim.diagnostic.get(main_buf)) do
        if d.code == 'orphan' and d.lnum == n then
          return true
        end
      end
      return false
    end)
    api.nvim_win_set_cursor(0, { n + 1, 16 })
    local titles, chosen = {}, nil
    local select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      for i, item in ipairs(items) do
        local action = item.action or item[2] or item
        table.insert(titles, action.title)
        if not chosen and action.title:find('Re-parent line ' .. (n + 1), 1, true) then
          chosen = i
        end
      end
      on_choice(chosen and items[chosen] or nil, chosen)
    end
    vim.lsp.buf.code_action()
    wait_for('the quick fix to be applied', function()
      local l = api.nvim_buf_get_lines(main_buf, n, n + 1, false)[1]
      return l and not l:find('no-such-parent-0001', 1, true)
    end)
    vim.ui.select = select
    assert_true(chosen, 'no re-parent quick fix offered; actions: ' .. vim.inspect(titles))
    local fixed = vim.json.decode(api.nvim_buf_get_lines(main_buf, n, n + 1, false)[1])
    assert_true(uuid_lines(main_buf)[fixed.parentUuid], 'new parent ' .. tostring(fixed.parentUuid) .. ' is no record of the buffer')
    wait_for('the orphan to go', function()
      for _, d in ipairs(vim.diagnostic.get(main_buf)) do
        if d.code == 'orphan' then
          return false
        end
      end
      return true
    end)
    eq(io.open(MAIN, 'r'):read('*a') == disk, true, 'the log on disk is unchanged')
    api.nvim_buf_set_lines(main_buf, n, n + 1, false, {})
  end)

  -- A live session: the main log grows on disk while it is open and its first sub-agent creates
  -- <session>/subagents/ (Neovim 0.7 watches no files: the plugin reloads the buffer, the server
  -- finds the new folder itself). Nothing here calls :checktime or :edit.
  local live_id = '22222222-2222-4222-8222-222222222222'
  local live_agent = 'a5b6c7d8e9f0a1b2c'
  local live_main = vim.fn.fnamemodify(MAIN, ':h') .. '/' .. live_id .. '.jsonl'
  local live_buf
  local function append_on_disk(path, text)
    local f = assert(io.open(path, 'a'))
    f:write(text)
    f:close()
  end
  local function codes(bufnr)
    local c = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(c, (d.lnum + 1) .. ':' .. tostring(d.code))
    end
    table.sort(c)
    return c
  end
  local function rec(uuid, parent, text)
    return string.format('{"parentUuid":"%s","isSidechain":false,"sessionId":"%s","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"%s"}]},"uuid":"%s","timestamp":"2026-03-01T10:01:00.000Z"}\n',
      parent, live_id, text, uuid)
  end

  step('a session log growing on disk is followed: buffer and diagnostics update without :checktime', function()
    vim.fn.writefile(vim.fn.readfile(vim.env.CCDAG_TEST_LIVE .. '/' .. live_id .. '.jsonl'), live_main)
    vim.cmd('edit ' .. vim.fn.fnameescape(live_main))
    live_buf = api.nvim_get_current_buf()
    wait_for('missing-agent-file on the new session', function()
      return vim.tbl_contains(codes(live_buf), '2:missing-agent-file')
    end)
    assert_true(require('ccdag.follow').following(live_buf), 'the session log is not followed')
    local n = api.nvim_buf_line_count(live_buf)
    append_on_disk(live_main, rec('live-0001', 'no-such-parent', 'still going'))
    wait_for('the buffer to reload with line ' .. (n + 1) .. ' and its orphan diagnostic', function()
      return api.nvim_buf_line_count(live_buf) == n + 1 and vim.tbl_contains(codes(live_buf), (n + 1) .. ':orphan')
    end)
    eq(vim.bo[live_buf].modified, false, 'modified after the reload')
  end)

  step('a subagents/ folder created after the server started: the server finds it (no file events)', function()
    local dir = vim.fn.fnamemodify(live_main, ':r') .. '/subagents'
    vim.fn.mkdir(dir, 'p')
    local src = vim.env.CCDAG_TEST_LIVE .. '/' .. live_id .. '/subagents/agent-' .. live_agent
    vim.fn.writefile(vim.fn.readfile(src .. '.jsonl'), dir .. '/agent-' .. live_agent .. '.jsonl')
    vim.fn.writefile(vim.fn.readfile(src .. '.meta.json'), dir .. '/agent-' .. live_agent .. '.meta.json')
    local n = api.nvim_buf_line_count(live_buf)
    append_on_disk(live_main, rec('live-0002', 'live-0001', 'and on'))
    wait_for('missing-agent-file to go once the agent log is found', function()
      -- the orphan of the step before stays: diagnostics cleared in between (Neovim 0.7 reloads
      -- as didClose + didOpen) do not count
      local c = codes(live_buf)
      return api.nvim_buf_line_count(live_buf) == n + 1 and vim.tbl_contains(c, n .. ':orphan')
        and not vim.tbl_contains(c, '2:missing-agent-file')
    end)
    api.nvim_set_current_buf(live_buf)
    vim.cmd('CcdagGraph text')
    local gbuf
    wait_for('the graph with the agent lane', function()
      local b = api.nvim_get_current_buf()
      if api.nvim_buf_get_name(b) == 'ccdag://graph/' .. live_id then
        gbuf = b
        return true
      end
      return false
    end)
    local text = table.concat(api.nvim_buf_get_lines(gbuf, 0, -1, false), '\n')
    assert_true(text:find('agent-' .. live_agent, 1, true) or text:find('Explore', 1, true), 'no lane for the new agent:\n' .. text)
    assert_true(text:find('⇒', 1, true), 'the Task call does not show its spawn:\n' .. text)
    vim.cmd('close')
  end)

  step('following off: the buffer stays as it was', function()
    local follow = require('ccdag.follow')
    follow.teardown()
    local n = api.nvim_buf_line_count(live_buf)
    append_on_disk(live_main, rec('live-0003', 'live-0002', 'unseen'))
    vim.wait(1000)
    eq(api.nvim_buf_line_count(live_buf), n, 'line count with following off')
    follow.setup({ 'jsonl' }, ccdag.wanted)
    assert_true(follow.following(live_buf), 'following not back on')
  end)

  step('a 4 MB log: from :edit to its diagnostics in Neovim, and where the time goes', function()
    local src = vim.env.CCDAG_TEST_BIG
    assert_true(src and vim.loop.fs_stat(src), 'no 4 MB log: ' .. tostring(src))
    -- into the projects folder now (the plugin serves logs there; earlier steps count its sessions)
    local big = vim.fn.fnamemodify(MAIN, ':h:h') .. '/big/' .. vim.fn.fnamemodify(src, ':t')
    vim.fn.mkdir(vim.fn.fnamemodify(big, ':h'), 'p')
    assert_true(vim.loop.fs_copyfile(src, big), 'copy to ' .. big)
    local size = vim.loop.fs_stat(big).size
    assert_true(size >= 4 * 1024 * 1024, 'the log has ' .. size .. ' bytes')
    local uri = vim.uri_from_fname(big)
    local received
    local orig = vim.lsp.handlers['textDocument/publishDiagnostics']
    vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
      if result and result.uri == uri and not received and #(result.diagnostics or {}) > 0 then
        received = vim.loop.hrtime()
      end
      return orig(err, result, ctx, config)
    end
    local t0 = vim.loop.hrtime()
    vim.cmd('edit ' .. vim.fn.fnameescape(big))
    local t_loaded = vim.loop.hrtime()
    local bbuf = api.nvim_get_current_buf()
    local t_attached
    local ok = vim.wait(TIMEOUT, function()
      if not t_attached and ccdag.get_client(bbuf) and vim.lsp.buf_is_attached(bbuf, ccdag.get_client(bbuf).id) then
        t_attached = vim.loop.hrtime()
      end
      return #vim.diagnostic.get(bbuf) > 0
    end, 5)
    local t_shown = vim.loop.hrtime()
    vim.lsp.handlers['textDocument/publishDiagnostics'] = orig
    assert_true(ok, 'no diagnostics on the 4 MB log')
    local ms = function(a, b)
      return (b - a) / 1e6
    end
    local total = ms(t0, t_shown)
    out(string.format('     %.1f MB, %d lines: open to diagnostics %.0f ms = :edit (read, filetype, attach, didOpen) %.0f ms + to attached %.0f ms + server and wire %.0f ms + shown %.0f ms; %d diagnostics (load %s)',
      size / 1048576, api.nvim_buf_line_count(bbuf), total, ms(t0, t_loaded), ms(t_loaded, t_attached or t_loaded),
      ms(t_attached or t_loaded, received or t_shown), ms(received or t_shown, t_shown), #vim.diagnostic.get(bbuf),
      (vim.fn.readfile('/proc/loadavg')[1] or '?'):match('^%S+')))
    -- docs/spec.md §10: <= 1.5 s; a loaded CI machine gets a margin, the figure above is the measure
    assert_true(total <= 1500 * tonumber(vim.env.CCDAG_TEST_SLOWDOWN or '3'), string.format('%.0f ms from open to diagnostics', total))
    vim.cmd('bwipeout! ' .. bbuf)
    back_to_main()
  end)

  step('a session of 1 000+ nodes: :CcdagGraph text draws each node, and how long it takes', function()
    local src = vim.env.CCDAG_TEST_THOUSAND
    assert_true(src and vim.loop.fs_stat(src), 'no generated log: ' .. tostring(src))
    local log = vim.fn.fnamemodify(MAIN, ':h:h') .. '/gen/' .. vim.fn.fnamemodify(src, ':t')
    vim.fn.mkdir(vim.fn.fnamemodify(log, ':h'), 'p')
    assert_true(vim.loop.fs_copyfile(src, log), 'copy to ' .. log)
    local want = vim.fn.json_decode(vim.fn.system({ 'ccdag', 'graph', '--format', 'json', log }))
    local nodes = #want.nodes
    assert_true(nodes >= 1000, 'the generated session has ' .. nodes .. ' nodes')
    vim.cmd('edit ' .. vim.fn.fnameescape(log))
    local lbuf = api.nvim_get_current_buf()
    wait_for('the server on the generated log', function()
      local c = ccdag.get_client(lbuf)
      return c ~= nil and vim.lsp.buf_is_attached(lbuf, c.id)
    end)
    local t0 = vim.loop.hrtime()
    vim.cmd('CcdagGraph text')
    local gbuf
    wait_for('the graph buffer of the generated session', function()
      local b = api.nvim_get_current_buf()
      if api.nvim_buf_get_name(b) == 'ccdag://graph/' .. want.session.id then
        gbuf = b
        return true
      end
      return false
    end)
    local ms = (vim.loop.hrtime() - t0) / 1e6
    local lines = api.nvim_buf_get_lines(gbuf, 0, -1, false)
    local drawn = 0
    for _, l in ipairs(lines) do
      if l:match('^%s*%d+%s.*%[[UTAOSx]%]') then
        drawn = drawn + 1
      end
    end
    eq(drawn, nodes, 'node lines in the graph buffer')
    assert_true(lines[1]:find(nodes .. ' nodes', 1, true), 'the heading does not say ' .. nodes .. ' nodes: ' .. lines[1])
    out(string.format('     %d nodes drawn in %.0f ms (load %s)', drawn, ms, (vim.fn.readfile('/proc/loadavg')[1] or '?'):match('^%S+')))
    -- docs/spec.md §10: a first picture of 1 000 nodes in <= 2 s; a loaded CI machine gets a margin
    assert_true(ms <= 2000 * tonumber(vim.env.CCDAG_TEST_SLOWDOWN or '3'), string.format('%.0f ms to the graph', ms))
    vim.cmd('bwipeout! ' .. gbuf)
    vim.cmd('bwipeout! ' .. lbuf)
    back_to_main()
  end)

  -- A view alone in its window (:only): :close fails there (E444), so q shows the log instead.
  for _, view in ipairs({
    { 'CcdagTranscript', 'ccdag://transcript/' },
    { 'CcdagResume', 'ccdag://resume/' },
    { 'CcdagGraph text', 'ccdag://graph/' },
  }) do
    step('q in :' .. view[1] .. ' as the only window: the log again, no error', function()
      back_to_main()
      vim.cmd('silent! only')
      vim.cmd(view[1])
      local vbuf
      wait_for('the view', function()
        vbuf = api.nvim_get_current_buf()
        return api.nvim_buf_get_name(vbuf):find(view[2], 1, true) ~= nil
      end)
      vim.cmd('only')
      local errmsg = vim.v.errmsg
      api.nvim_feedkeys('q', 'x', false)
      eq(vim.v.errmsg, errmsg, 'the error after q')
      eq(#api.nvim_tabpage_list_wins(0), 1, 'windows')
      eq(api.nvim_get_current_buf(), main_buf, 'the buffer after q')
    end)
  end

  step(':checkhealth ccdag', function()
    vim.cmd('checkhealth ccdag')
    local text = table.concat(api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    assert_true(text:find('ccdag', 1, true), 'no ccdag section')
    assert_true(text:find('found ', 1, true), 'binary not reported:\n' .. text)
    assert_true(text:find('ccdag version', 1, true), 'version not reported:\n' .. text)
    assert_true(text:find('client ' .. client.id, 1, true), 'client not reported:\n' .. text)
    assert_true(not text:find('ERROR', 1, true), 'checkhealth reports an error:\n' .. text)
    out('     ' .. text:gsub('\n', '\n     '))
  end)

  -- An error in a callback (an answer for a buffer wiped meanwhile, say) fails no step by itself,
  -- but the user sees it: none may have been shown during the run.
  step('no error message during the run (v:errmsg)', function()
    eq(vim.v.errmsg, '', 'the last error message shown')
  end)
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failed = failed + 1
  out('FAIL - test script: ' .. tostring(err))
end
finish()
