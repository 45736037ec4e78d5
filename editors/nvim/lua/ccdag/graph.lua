-- :CcdagGraph: the session's workflow graph (docs/spec.md §4) as text in a split, or as the HTML
-- picture `ccdag graph --format html` writes. The text is the server's drawing (the graph request
-- with format "text", the same as `ccdag graph --format text`), shown as it is: the plugin draws
-- nothing itself. Uses the client and helpers of require('ccdag').
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

-- The one line the plugin adds to the drawing, after its header and legend.
local key_hint = '<CR> jump to the record   q close'

--- Show a drawn graph ({text, lines = {{row, location}}}, rows 0-based; lines may be empty) in a
--- split. Returns the buffer.
function M.show_text_graph(res, source_win)
  local lines = vim.split(res.text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  table.insert(lines, math.min(3, #lines + 1), key_hint)
  local locs = {}
  for _, l in ipairs(res.lines or {}) do
    -- 1-based buffer rows, past the key hint
    locs[l.row + (l.row >= 2 and 2 or 1)] = l.location
  end
  local sid = (lines[1] or ''):match('^Session (.-): ') or 'session'
  local log = source_win and api.nvim_win_is_valid(source_win) and api.nvim_win_get_buf(source_win) or nil
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
  vim.keymap.set('n', 'q', function()
    require('ccdag.sideview').close(log)
  end, opts)
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

--- Fetch the graph drawn as text for a buffer: through the language server when it is attached
--- (with each node line's location), else with `ccdag graph --format text` (no locations).
--- cb({text, lines}) or cb(nil, error)
function M.fetch_graph(bufnr, cb)
  local client = ccdag().get_client(bufnr)
  if client then
    local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, format = 'text' }
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
  run_cli({ '--format', 'text', path }, function(ok, out, err)
    if not ok then
      return cb(nil, err)
    end
    cb({ text = out, lines = {} })
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
