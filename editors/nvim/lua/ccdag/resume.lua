-- ccdag: Preview Resume in Neovim (docs/spec.md §13).
--
-- :CcdagResume  what `claude --resume` sends of this session (request ccdag/resumePreview, the
--               text `ccdag resume` prints): the Claude Code version assumed to load it and why,
--               the records sent in order, where the chain breaks and what is lost, what is
--               dropped (calls without results, glued records, API errors), in a read-only scratch
--               buffer beside the log. <CR> on a line that names a record jumps to it in the log;
--               r asks again; q closes (alone in its window: shows the log). The loader assumed
--               is setup's claude_version ('' for the newest version in the logs under the
--               session's config folder).
local M = {}
local api = vim.api

local function ccdag()
  return require('ccdag')
end

local side = require('ccdag.sideview')

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

--- Asks the server for the preview shown in pbuf; done() runs once it is filled.
function M.fetch(pbuf, done)
  local v = views[pbuf]
  if not v or not api.nvim_buf_is_valid(pbuf) or not api.nvim_buf_is_valid(v.log) then
    return
  end
  side.request(v.log, 'ccdag/resumePreview', { textDocument = { uri = vim.uri_from_bufnr(v.log) } }, 'resume preview', function(result)
    if api.nvim_buf_is_valid(pbuf) then
      side.set_text(pbuf, result.text)
      views[pbuf].lines = result.lines or {}
    end
  end, done)
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
  side.goto_log(e.uri, e.line)
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
  -- The server also republishes the diagnostics after a change of the setting claude_version.
  local pbuf = side.open(log, {
    name = 'ccdag://resume/' .. vim.fn.fnamemodify(api.nvim_buf_get_name(log), ':t:r'),
    filetype = 'ccdagresume',
    jump = M.jump,
    refetch = function(b)
      M.fetch(b)
    end,
    on_wipe = function(b)
      views[b] = nil
    end,
    keys = {
      { 'r', function() M.fetch(vim.api.nvim_get_current_buf()) end, 'ccdag: preview the resume again' },
    },
  })
  vim.wo.wrap = false
  views[pbuf] = { log = log, lines = {} }
  M.fetch(pbuf)
  return pbuf
end

return M
