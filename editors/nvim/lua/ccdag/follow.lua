-- Following session logs that grow on disk (a live Claude Code session): each loaded session log
-- is watched (libuv fs events, or a 1 s fs_poll where events cannot be had) and reloaded
-- (:checktime on that buffer, 'autoread' set for it) when it changes, unless it has unsaved
-- changes. A window whose cursor was on the last line stays on the last line, like `tail -f`.
-- The language server then gets the new text (didChange) and checks only what was appended.
-- Neovim 0.7 to 0.11+. Off with setup({ follow = false }).
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local watchers = {} -- bufnr -> { handle = uv handle, timer = uv timer, path = string }

-- How long a burst of writes is let settle before the reload (a live session appends several
-- records at once).
M.settle_ms = 80

local function stop(bufnr)
  local w = watchers[bufnr]
  if not w then
    return
  end
  watchers[bufnr] = nil
  for _, h in ipairs({ w.handle, w.timer }) do
    if h and not h:is_closing() then
      h:stop()
      h:close()
    end
  end
end
M.stop = stop

-- Reload the buffer from disk when it is unmodified; keep "at the end" windows at the end.
local function reload(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or not api.nvim_buf_is_loaded(bufnr) or vim.bo[bufnr].modified then
    return
  end
  local at_end = {}
  local last = api.nvim_buf_line_count(bufnr)
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    if api.nvim_win_get_cursor(win)[1] >= last then
      table.insert(at_end, win)
    end
  end
  vim.bo[bufnr].autoread = true
  vim.cmd('silent! checktime ' .. bufnr)
  local n = api.nvim_buf_line_count(bufnr)
  for _, win in ipairs(at_end) do
    if api.nvim_win_is_valid(win) and api.nvim_win_get_buf(win) == bufnr then
      api.nvim_win_set_cursor(win, { n, 0 })
    end
  end
end
M.reload = reload

local start

-- A change reported by libuv (any thread): reload after the burst settles. A rename (the log was
-- replaced) re-arms the watch on the new file.
local function on_change(bufnr, renamed)
  local w = watchers[bufnr]
  if not w then
    return
  end
  w.timer:stop()
  w.timer:start(M.settle_ms, 0, function()
    vim.schedule(function()
      if renamed and watchers[bufnr] then
        local path = watchers[bufnr].path
        stop(bufnr)
        start(bufnr, path)
      end
      reload(bufnr)
    end)
  end)
end

start = function(bufnr, path)
  if watchers[bufnr] or not uv then
    return
  end
  local timer = uv.new_timer()
  local w = { timer = timer, path = path }
  watchers[bufnr] = w
  local ev = uv.new_fs_event()
  local ok = ev
    and ev:start(path, {}, function(err, _, events)
      if err then
        return
      end
      on_change(bufnr, events and events.rename)
    end)
  if ok then
    w.handle = ev
    return
  end
  if ev then
    ev:close()
  end
  local poll = uv.new_fs_poll()
  if poll and poll:start(path, 1000, function(err)
    if not err then
      on_change(bufnr, false)
    end
  end) then
    w.handle = poll
  end
end

--- Follow a buffer's file (idempotent). Returns whether it is followed.
function M.follow(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local path = vim.fn.fnamemodify(name, ':p')
  if vim.fn.filereadable(path) ~= 1 then
    return false
  end
  start(bufnr, path)
  return watchers[bufnr] ~= nil
end

--- Whether a buffer is followed.
function M.following(bufnr)
  return watchers[bufnr] ~= nil
end

--- Set up following for session logs (wanted decides which buffers: require('ccdag').wanted).
function M.setup(filetypes, wanted)
  local group = api.nvim_create_augroup('ccdag_follow', { clear = true })
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = filetypes,
    callback = function(ev)
      if wanted(ev.buf) then
        M.follow(ev.buf)
      end
    end,
  })
  api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    group = group,
    callback = function(ev)
      stop(ev.buf)
    end,
  })
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and vim.tbl_contains(filetypes, vim.bo[b].filetype) and wanted(b) then
      M.follow(b)
    end
  end
end

--- Stop following every buffer (setup({ follow = false }) after it was on).
function M.teardown()
  pcall(api.nvim_del_augroup_by_name, 'ccdag_follow')
  for b in pairs(watchers) do
    stop(b)
  end
end

return M
