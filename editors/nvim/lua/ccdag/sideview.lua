-- A read-only scratch buffer beside a log, filled from a server request and kept current with the
-- log: what :CcdagTranscript (ccdag.reading) and :CcdagResume (ccdag.resume) show. The two differ
-- in the request and in how a line names a log record; opening, filling, following and jumping are
-- here, once. Neovim 0.7 to 0.11+.
local M = {}
local api = vim.api

local function ccdag()
  return require('ccdag')
end

--- Shows `text` in the read-only buffer `buf`.
function M.set_text(buf, text)
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- Asks the log's ccdag server `method` with `params`; on an answer, on_result(result) and then
--- done() if given; an error or no answer is said as '<what>: <reason>'.
function M.request(log, method, params, what, on_result, done)
  local client = ccdag().get_client(log)
  if not client then
    vim.notify('ccdag: no ccdag language server on the log', vim.log.levels.WARN)
    return
  end
  ccdag().request(client, method, params, function(err, result)
    if err or not result then
      vim.notify('ccdag: ' .. what .. ': ' .. tostring(err and err.message or 'no result'), vim.log.levels.WARN)
      return
    end
    on_result(result)
    if done then
      done()
    end
  end, log)
end

--- Puts the cursor on 0-based `line` of the log at `uri`: in a window that shows it, else in the
--- previous window.
function M.goto_log(uri, line)
  local target = vim.uri_to_bufnr(uri)
  local win
  for _, w in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(w) == target then
      win = w
    end
  end
  if win then
    api.nvim_set_current_win(win)
  else
    vim.cmd('wincmd p')
    api.nvim_win_set_buf(0, target)
  end
  vim.fn.bufload(target)
  api.nvim_win_set_cursor(0, { math.min(line + 1, api.nvim_buf_line_count(target)), 0 })
end

--- q in a view: closes its window. Alone in the tab page's last window (where :close fails,
--- E444) it shows `back` (the log) there instead, else the alternate buffer, else an empty one.
function M.close(back)
  local wins = 0
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_config(w).relative == '' then -- a float does not keep the tab page open
      wins = wins + 1
    end
  end
  if wins > 1 or #api.nvim_list_tabpages() > 1 then
    return vim.cmd('close')
  end
  local cur = api.nvim_get_current_buf()
  if not (back and back ~= cur and api.nvim_buf_is_valid(back)) then
    back = vim.fn.bufnr('#')
  end
  if back > 0 and back ~= cur and api.nvim_buf_is_valid(back) then
    api.nvim_win_set_buf(0, back)
  else
    vim.cmd('enew')
  end
end

--- Opens a read-only scratch buffer for `log` in a vertical split and returns it.
--- opts: name (the buffer's name), filetype, jump (<CR>), refetch(buf) (asks the server again:
--- run when the log's session diagnostics change, as the server republishes them after every
--- change to any of the session's files), on_wipe(buf), keys (extra { lhs, fn, desc }).
function M.open(log, opts)
  local buf = api.nvim_create_buf(false, true)
  pcall(api.nvim_buf_set_name, buf, opts.name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = opts.filetype
  vim.cmd('vsplit')
  api.nvim_win_set_buf(0, buf)
  vim.keymap.set('n', '<CR>', opts.jump, { buffer = buf, desc = 'ccdag: jump to the log line' })
  for _, k in ipairs(opts.keys or {}) do
    vim.keymap.set('n', k[1], k[2], { buffer = buf, desc = k[3] })
  end
  vim.keymap.set('n', 'q', function()
    M.close(log)
  end, { buffer = buf, desc = 'ccdag: close' })
  local group = api.nvim_create_augroup('ccdag_sideview_' .. buf, { clear = true })
  local pending = false
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(ev)
      if ev.buf ~= log or pending then
        return
      end
      pending = true
      vim.defer_fn(function()
        pending = false
        opts.refetch(buf)
      end, 200)
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = buf,
    callback = function()
      if opts.on_wipe then
        opts.on_wipe(buf)
      end
      pcall(api.nvim_del_augroup_by_id, group)
    end,
  })
  return buf
end

return M
