-- ccdag: Preview Resume in Neovim (docs/spec.md §13).
--
-- :CcdagResume  what `claude --resume` sends of this session (request ccdag/resumePreview, the
--               text `ccdag resume` prints): the Claude Code version assumed to load it and why,
--               the records sent in order, where the chain breaks and what is lost, what is
--               dropped (calls without results, glued records, API errors), in a read-only scratch
--               buffer beside the log. <CR> on a line that names a record jumps to it in the log;
--               r asks again; q closes. The loader assumed is setup's claude_version ('' for the
--               newest version in the logs under the session's config folder).
local M = {}
local api = vim.api

local function ccdag()
  return require('ccdag')
end

local views = {} -- preview bufnr -> { log = bufnr, lines = links }

--- The link of a 0-based preview line ({preview, uri, line}), or nil when it names no record.
function M.link(links, pline)
  for _, e in ipairs(links or {}) do
    if e.preview == pline then
      return e
    end
  end
  return nil
end

local function fill(pbuf, result)
  local lines = vim.split(result.text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.bo[pbuf].modifiable = true
  api.nvim_buf_set_lines(pbuf, 0, -1, false, lines)
  vim.bo[pbuf].modifiable = false
  vim.bo[pbuf].modified = false
  views[pbuf].lines = result.lines or {}
end

--- Asks the server for the preview shown in pbuf; done() runs once it is filled.
function M.fetch(pbuf, done)
  local v = views[pbuf]
  if not v or not api.nvim_buf_is_valid(pbuf) or not api.nvim_buf_is_valid(v.log) then
    return
  end
  local client = ccdag().get_client(v.log)
  if not client then
    vim.notify('ccdag: no ccdag language server on the log', vim.log.levels.WARN)
    return
  end
  ccdag().request(client, 'ccdag/resumePreview', { textDocument = { uri = vim.uri_from_bufnr(v.log) } }, function(err, result)
    if err or not result then
      vim.notify('ccdag: resume preview: ' .. tostring(err and err.message or 'no result'), vim.log.levels.WARN)
      return
    end
    if api.nvim_buf_is_valid(pbuf) then
      fill(pbuf, result)
    end
    if done then
      done()
    end
  end, v.log)
end

--- Jumps from the cursor's preview line to the log record it names.
function M.jump()
  local v = views[api.nvim_get_current_buf()]
  if not v then
    return
  end
  local e = M.link(v.lines, api.nvim_win_get_cursor(0)[1] - 1)
  if not e then
    vim.notify('ccdag: this line names no record of the log', vim.log.levels.INFO)
    return
  end
  local target = vim.uri_to_bufnr(e.uri)
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
  api.nvim_win_set_cursor(0, { math.min(e.line + 1, api.nvim_buf_line_count(target)), 0 })
end

--- Opens the resume preview of the current log in a split (or asks again for the one open).
--- Returns the preview's buffer.
function M.resume()
  local log = api.nvim_get_current_buf()
  if not ccdag().get_client(log) then
    vim.notify('ccdag: no ccdag language server on this buffer', vim.log.levels.WARN)
    return nil
  end
  for pb, v in pairs(views) do
    if v.log == log and api.nvim_buf_is_valid(pb) then
      M.fetch(pb)
      return pb
    end
  end
  local pbuf = api.nvim_create_buf(false, true)
  local name = vim.fn.fnamemodify(api.nvim_buf_get_name(log), ':t:r')
  pcall(api.nvim_buf_set_name, pbuf, 'ccdag://resume/' .. name)
  vim.bo[pbuf].buftype = 'nofile'
  vim.bo[pbuf].bufhidden = 'wipe'
  vim.bo[pbuf].swapfile = false
  vim.bo[pbuf].modifiable = false
  vim.bo[pbuf].filetype = 'ccdagresume'
  views[pbuf] = { log = log, lines = {} }
  vim.cmd('vsplit')
  api.nvim_win_set_buf(0, pbuf)
  vim.wo.wrap = false
  vim.keymap.set('n', '<CR>', M.jump, { buffer = pbuf, desc = 'ccdag: jump to the record in the log' })
  vim.keymap.set('n', 'r', function()
    M.fetch(pbuf)
  end, { buffer = pbuf, desc = 'ccdag: preview the resume again' })
  vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = pbuf, desc = 'ccdag: close the preview' })
  local group = api.nvim_create_augroup('ccdag_resume_' .. pbuf, { clear = true })
  local pending = false
  -- The server republishes a session's diagnostics after every change to any of its files, and
  -- after a change of the setting claude_version.
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(ev)
      if ev.buf ~= log or pending then
        return
      end
      pending = true
      vim.defer_fn(function()
        pending = false
        M.fetch(pbuf)
      end, 200)
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = pbuf,
    callback = function()
      views[pbuf] = nil
      pcall(api.nvim_del_augroup_by_id, group)
    end,
  })
  M.fetch(pbuf)
  return pbuf
end

return M
