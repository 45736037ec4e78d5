-- :CcdagSessions: the session browser (docs/spec.md §10, §14). A buffer of one row per session,
-- newest first, filled as the rows arrive: the server's ccdag/sessions streams them on a
-- partialResultToken ($/progress, the history cache's rows first) and its answer is the whole list,
-- sorted. Nothing waits for it: the command returns at once and the editor answers keys while the
-- list fills. With no server running, `ccdag sessions --format json` runs as a job.
--
--   /      filter: the sessions one of whose records holds every word (the server's `query`, as
--          `ccdag search`), not titles alone; an empty filter lists every session
--   <CR>   open the session's main log        r   ask again        q, <Esc>   close
local M = {}
local api = vim.api

local function ccdag()
  return require('ccdag')
end

local ns = api.nvim_create_namespace('ccdag_sessions')

--- One number rule (internal/tokens.Short): 950, 3.3k, 34.5k, 152k, 1.6M, 11.7M.
function M.short(n)
  n = tonumber(n) or 0
  if n < 1000 then
    return tostring(n)
  end
  local units = { 'k', 'M', 'B', 'T' }
  local v = n
  for i, u in ipairs(units) do
    v = v / 1000
    if not (v >= 999.5 and i < #units) then
      if v < 99.95 then
        return string.format('%.1f%s', v, u)
      end
      return string.format('%.0f%s', v, u)
    end
  end
  return tostring(n)
end

-- x with d decimals as Go writes it (strconv): the nearest, and a tie (x halfway, as 0.0625 is for
-- 3) to the even digit: "0.062". LuaJIT's string.format rounds a tie up ("0.063"). x is halfway
-- only when x * 2^(d+1) is an odd whole number (exact: a power of two).
local function fixed(x, d)
  local h = x * 2 ^ (d + 1)
  if h == math.floor(h) and h % 2 == 1 then
    local k = math.floor(x * 10 ^ d) -- x * 10^d is k + 0.5, exactly
    if k % 2 == 1 then
      k = k + 1
    end
    x = k / 10 ^ d
  end
  return string.format('%.' .. d .. 'f', x)
end

--- Dollars as the server writes them (internal/prices.Nano.String): $0, < $0.0001, $0.0042,
--- $0.036, $0.412, $0.42, $4.21, $1,234.
function M.dollars(usd)
  usd = tonumber(usd) or 0
  if usd < 0 then
    return '-' .. M.dollars(-usd)
  end
  local n = math.floor(usd * 1e9 + 0.5) -- nano-dollars, as the server counts
  local x = n / 1e9
  if n == 0 then
    return '$0'
  elseif n < 100000 then
    return '< $0.0001'
  elseif n < 10000000 then -- under a cent: four decimals, the zeros after the last digit dropped
    return '$' .. (fixed(x, 4):gsub('0+$', ''):gsub('%.$', ''))
  elseif n < 995000000 then -- under a dollar: three decimals, the third dropped when 0
    local s = fixed(x, 3)
    return '$' .. s:sub(1, 4) .. (s:sub(5):gsub('0+$', ''))
  elseif n < 999995000000 then -- cents, rounded half up
    local cents = math.floor((n + 5000000) / 10000000)
    return string.format('$%d.%02d', math.floor(cents / 100), cents % 100)
  end
  local s = string.format('%.0f', math.floor((n + 500000000) / 1e9)) -- whole dollars, rounded half up
  for i = #s - 3, 1, -3 do
    s = s:sub(1, i) .. ',' .. s:sub(i + 1)
  end
  return '$' .. s
end

--- An ISO timestamp (UTC, as logged) in local time: "2026-01-31 20:22"; '-' when not one.
function M.localtime(ts)
  if type(ts) ~= 'string' then
    return '-'
  end
  local y, mo, d, h, mi, s = ts:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)')
  if not y then
    return '-'
  end
  -- os.time reads a table as local time: the UTC offset of that moment corrects it
  local t = os.time({ year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h), min = tonumber(mi), sec = tonumber(s) })
  local off = os.time(os.date('*t', t)) - os.time(os.date('!*t', t))
  return os.date('%Y-%m-%d %H:%M', t + off)
end

local function resume_state(r)
  if type(r) ~= 'table' then
    return '·'
  end
  if r.complete then
    return '✓'
  end
  if r.brokenAt ~= nil and r.brokenAt ~= vim.NIL then
    return (tonumber(r.lost) or 0) > 0 and ('✗ loses ' .. r.lost) or '✗'
  end
  return '✓'
end

-- "1 session", "2 sessions"
local function count(n, word)
  return n .. ' ' .. word .. (n == 1 and '' or 's')
end

local function findings(f)
  if type(f) ~= 'table' then
    return ''
  end
  local n = (f.error or 0) + (f.warning or 0) + (f.information or 0) + (f.hint or 0)
  return n > 0 and count(n, 'finding') or ''
end

--- When Claude Code deletes the session: "at next start" once the day has come (overdue).
function M.deletion(s)
  if s.overdue == true then
    return 'at next start'
  end
  if type(s.deletes) == 'string' and s.deletes ~= '' then
    return s.deletes
  end
  return ''
end

-- Display width of s cut or padded to w columns.
local function fit(s, w)
  s = tostring(s or '')
  if vim.fn.strdisplaywidth(s) > w then
    -- cut from the left: a folder's end names it (~/…/webtech-monorepo)
    local chars = vim.fn.split(s, '\\zs')
    local out = ''
    for i = #chars, 1, -1 do
      if vim.fn.strdisplaywidth('…' .. chars[i] .. out) > w then
        break
      end
      out = chars[i] .. out
    end
    s = '…' .. out
  end
  return s .. string.rep(' ', w - vim.fn.strdisplaywidth(s))
end

local widths = { 16, 13, 34, 15, 11, 7, 11 } -- cost: "≥ $12,346", "< $0.0001"
M.header = table.concat({ fit('when (local)', widths[1]), fit('deletes', widths[2]), fit('project (cwd)', widths[3]),
  fit('out · in', widths[4]), fit('cost', widths[5]), fit('resume', widths[6]), fit('findings', widths[7]), 'title' }, '  ')

--- The line a session is shown as: when (local time) · deletion day · project (the folder it ran
--- in) · tokens · cost · resume state · findings · title, the title last (the one long field).
function M.label(s)
  local t = s.tokens or {}
  local out = M.short(t.output)
  if (tonumber(t.unfinishedMessages) or 0) > 0 then
    out = '≥ ' .. out
  end
  local cost = ''
  if type(s.cost) == 'table' then
    if (s.cost.priced or 0) > 0 then
      cost = ((s.cost.lowerBound == true or (s.cost.unpriced or 0) > 0) and '≥ ' or '') .. M.dollars(s.cost.usd)
    elseif (s.cost.unpriced or 0) > 0 then
      cost = 'unpriced'
    end
  end
  local title = (s.title ~= nil and s.title ~= '') and s.title or s.id
  return table.concat({
    fit(M.localtime(s['end']), widths[1]),
    fit(M.deletion(s), widths[2]),
    fit(s.project or s.projectFolder or '?', widths[3]),
    fit(out .. ' · ' .. M.short((t.input or 0) + (t.cacheCreation or 0) + (t.cacheRead or 0)), widths[4]),
    fit(cost, widths[5]),
    fit(resume_state(s.resume), widths[6]),
    fit(findings(s.findings), widths[7]),
    title,
  }, '  ')
end

-- ---------------------------------------------------------------------------
-- the browser

M.state = nil -- the open browser: see open()
local tokens = 0

local function sorted(rows)
  local list = {}
  for _, r in pairs(rows) do
    table.insert(list, r)
  end
  table.sort(list, function(a, b)
    if (a['end'] or '') ~= (b['end'] or '') then
      return (a['end'] or '') > (b['end'] or '')
    end
    return (a.uri or '') < (b.uri or '')
  end)
  return list
end

local function render(st)
  if not api.nvim_buf_is_valid(st.buf) then
    return
  end
  st.list = sorted(st.rows)
  local status
  if st.err then
    status = 'error: ' .. st.err
  elseif st.done then
    status = count(#st.list, 'session')
  else
    status = 'reading… ' .. #st.list .. ' so far'
  end
  local filter = st.query ~= '' and ('  filter: "' .. st.query .. '"') or ''
  local lines = { 'Claude sessions — ' .. status .. filter .. '   (/ filter, <CR> open, r again, q close)', M.header }
  for _, s in ipairs(st.list) do
    table.insert(lines, M.label(s))
  end
  vim.bo[st.buf].modifiable = true
  api.nvim_buf_set_lines(st.buf, 0, -1, false, lines)
  vim.bo[st.buf].modifiable = false
  vim.bo[st.buf].modified = false
  if #st.list > 0 and api.nvim_win_is_valid(st.win) and api.nvim_win_get_buf(st.win) == st.buf
    and api.nvim_win_get_cursor(st.win)[1] < 3 then
    api.nvim_win_set_cursor(st.win, { 3, 0 }) -- on the first session, not the header
  end
  api.nvim_buf_clear_namespace(st.buf, ns, 0, -1)
  api.nvim_buf_add_highlight(st.buf, ns, 'Title', 0, 0, -1)
  api.nvim_buf_add_highlight(st.buf, ns, 'Comment', 1, 0, -1)
  for i, s in ipairs(st.list) do
    if s.empty == true then
      api.nvim_buf_add_highlight(st.buf, ns, 'Comment', i + 1, 0, -1) -- nothing said in it: dimmed
    elseif s.overdue == true then
      local from = widths[1] + 2
      api.nvim_buf_add_highlight(st.buf, ns, 'WarningMsg', i + 1, from, from + #'at next start')
    end
  end
end

local function add(st, rows)
  for _, s in ipairs(rows or {}) do
    if type(s) == 'table' and s.uri then
      st.rows[s.uri] = s
    end
  end
end

--- $/progress of the ccdag client: the rows of a partial result (our token) go to the browser,
--- anything else to Neovim's handler.
function M.on_progress(err, result, ctx, config)
  local st = M.state
  if st and type(result) == 'table' and result.token == st.token and type(result.value) == 'table' and result.value.sessions then
    if st.done then
      return
    end
    st.batches = st.batches + 1
    if not st.t_first then
      st.t_first = vim.loop.hrtime()
    end
    add(st, result.value.sessions)
    render(st)
    return
  end
  return vim.lsp.handlers['$/progress'](err, result, ctx, config)
end

local function finish(st, list, err)
  if M.state ~= st or not api.nvim_buf_is_valid(st.buf) then
    return
  end
  st.done, st.err, st.t_done = true, err, vim.loop.hrtime()
  if list then
    st.rows = {}
    add(st, list)
  end
  render(st)
end

-- path made absolute against the folder dir (as given: relative to it, or absolute already).
local function absolute(path, dir)
  if not (path:match('^[/\\]') or path:match('^%a:[/\\]')) then
    path = dir .. '/' .. path
  end
  return vim.fn.fnamemodify(path, ':p')
end

-- Asks for the rows: the server if one runs, else the command line, as a job.
local function ask(st)
  tokens = tokens + 1
  st.token = 'ccdag-sessions-' .. tokens
  st.rows, st.done, st.err, st.batches, st.t_first, st.t_done = {}, false, nil, 0, nil, nil
  st.t0 = vim.loop.hrtime()
  if st.cancel then
    pcall(st.cancel)
    st.cancel = nil
  end
  local client = ccdag().all_clients()[1]
  if client then
    local params = { partialResultToken = st.token }
    if st.query ~= '' then
      params.query = st.query
    end
    if st.folders then
      params.folders = st.folders
    end
    local token = st.token
    local ok, id = ccdag().request(client, 'ccdag/sessions', params, function(err, result)
      if st.token ~= token then
        return -- an answer to a request asked again since
      end
      vim.schedule(function()
        if err then
          return finish(st, nil, err.message or vim.inspect(err))
        end
        finish(st, result and result.sessions or {})
      end)
    end)
    if ok and id then
      st.cancel = function()
        if vim.fn.has('nvim-0.11') == 1 then
          client:cancel_request(id)
        else
          client.cancel_request(id)
        end
      end
    end
    render(st)
    return
  end
  if not ccdag().available() then
    return finish(st, nil, 'ccdag not found')
  end
  local cmd = { ccdag().binary(), 'sessions', '--format', 'json' }
  if st.query ~= '' then
    vim.list_extend(cmd, { '--query', st.query })
  end
  for _, f in ipairs(st.folders or {}) do
    table.insert(cmd, vim.uri_to_fname(f))
  end
  -- The CLI names a log under its working folder by a path relative to it: kept, to resolve
  -- against it, not against the folder current when the job ends (a window's :lcd meanwhile).
  local out, token, cwd = {}, st.token, vim.fn.getcwd()
  local job = vim.fn.jobstart(cmd, {
    cwd = cwd,
    stdout_buffered = true,
    on_stdout = function(_, data)
      out = data or {}
    end,
    on_exit = function()
      vim.schedule(function()
        if st.token ~= token then
          return
        end
        local ok, doc = pcall(vim.fn.json_decode, table.concat(out, '\n'))
        if not ok or type(doc) ~= 'table' then
          return finish(st, nil, 'ccdag sessions gave no list')
        end
        for _, s in ipairs(doc.sessions or {}) do
          s.uri = s.uri or vim.uri_from_fname(absolute(s.path, cwd))
        end
        finish(st, doc.sessions or {})
      end)
    end,
  })
  if job > 0 then
    st.cancel = function()
      vim.fn.jobstop(job)
    end
  end
  render(st)
end

--- Closes the browser.
function M.close()
  local st = M.state
  if not st then
    return
  end
  if st.cancel then
    pcall(st.cancel)
  end
  M.state = nil
  if api.nvim_win_is_valid(st.win) and #api.nvim_list_wins() > 1 then
    api.nvim_win_close(st.win, true)
  elseif api.nvim_buf_is_valid(st.buf) then
    api.nvim_buf_delete(st.buf, { force = true })
  end
end

--- Opens the session on the cursor's row in the window :CcdagSessions was called from.
function M.open_row()
  local st = M.state
  if not st or not st.list then
    return
  end
  local s = st.list[api.nvim_win_get_cursor(0)[1] - 2]
  if not s then
    return
  end
  local from = st.from
  M.close()
  if from and api.nvim_win_is_valid(from) then
    api.nvim_set_current_win(from)
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(s.uri)))
end

--- Filters the list: the sessions one of whose records holds every word of query ('' for all).
-- vim.ui.input, except on Neovim 0.7, whose vim.ui.input gives nil for an empty line as for a cancel
-- (0.8 tells them apart): there an emptied filter could not be cleared. 0.7 asks with input() itself,
-- a cancel told by its cancelreturn.
local CANCEL = '\1ccdag-cancel\1'
function M._input(opts, on_confirm)
  if vim.fn.has('nvim-0.8') == 1 then
    return vim.ui.input(opts, on_confirm)
  end
  local ok, q = pcall(vim.fn.input, { prompt = opts.prompt, default = opts.default or '', cancelreturn = CANCEL })
  on_confirm((ok and q ~= CANCEL) and q or nil)
end

function M.filter(query)
  local st = M.state
  if not st then
    return
  end
  st.query = vim.trim(query or '')
  ask(st)
end

--- :CcdagSessions. opts.folders (file URIs) lists those folders instead of the workspace's.
--- Returns at once; the rows arrive as they are ready.
function M.sessions(opts)
  opts = opts or {}
  if M.state and api.nvim_buf_is_valid(M.state.buf) then
    M.close()
  end
  local from = api.nvim_get_current_win()
  vim.cmd('botright new')
  local buf = api.nvim_get_current_buf()
  pcall(api.nvim_buf_set_name, buf, 'ccdag://sessions')
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'ccdagsessions'
  vim.wo.wrap = false
  vim.wo.cursorline = true
  local st = { buf = buf, win = api.nvim_get_current_win(), from = from, query = opts.query or '', folders = opts.folders }
  M.state = st
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'ccdag sessions: ' .. desc })
  end
  map('q', M.close, 'close')
  map('<Esc>', M.close, 'close')
  map('<CR>', M.open_row, 'open the session')
  map('r', function()
    ask(st)
  end, 'ask again')
  map('/', function()
    M._input({ prompt = 'Sessions holding the words: ', default = st.query }, function(q)
      if q ~= nil and M.state == st then
        M.filter(q)
      end
    end)
  end, 'filter by the words a record holds (an empty line clears it)')
  api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    callback = function()
      if M.state == st then
        if st.cancel then
          pcall(st.cancel)
        end
        M.state = nil
      end
    end,
  })
  ask(st)
  api.nvim_win_set_cursor(st.win, { math.min(3, api.nvim_buf_line_count(buf)), 0 })
  return st
end

return M
