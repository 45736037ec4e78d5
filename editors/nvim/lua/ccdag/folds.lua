-- ccdag: folds from the server's folding ranges (docs/spec.md §10), on every Neovim from 0.7
-- (which has no LSP folding): a turn, each step inside it (a tool call with its result), a
-- compaction segment, never a compaction boundary inside a fold. The ranges become fold levels
-- per line, read by a 'foldexpr', and a closed fold shows the range's collapsedText ('foldtext');
-- they are asked again when the session's diagnostics change
-- (the server republishes them after every change), so folds follow a growing log.
local M = {}
local api = vim.api

local levels = {} -- bufnr -> { [lnum (1-based)] = level or '>level' }
local texts = {} -- bufnr -> { [lnum (1-based)] = the server's collapsedText of the fold starting there }

--- The fold level table of ranges ({startLine, endLine}, 0-based, nested or apart).
function M.levels(ranges)
  local depth, starts = {}, {}
  for _, r in ipairs(ranges or {}) do
    local s, e = r.startLine + 1, r.endLine + 1
    if e > s then
      for l = s, e do
        depth[l] = (depth[l] or 0) + 1
      end
      starts[s] = true
    end
  end
  local out = {}
  for l, d in pairs(depth) do
    out[l] = starts[l] and ('>' .. d) or d
  end
  return out
end

--- 'foldexpr' of a log buffer.
function M.expr(lnum)
  local t = levels[api.nvim_get_current_buf()]
  return t and t[lnum] or 0
end

--- The server's collapsedText of each range, by its first line (1-based).
function M.texts(ranges)
  local out = {}
  for _, r in ipairs(ranges or {}) do
    if type(r.collapsedText) == 'string' and r.collapsedText ~= '' then
      out[r.startLine + 1] = r.collapsedText
    end
  end
  return out
end

--- 'foldtext' of a log buffer: what the fold holds ("turn 3 · Fix the coupon bug · 12 tool calls
--- · … · $0.42", the server's collapsedText), not its first line's JSON.
function M.text()
  local t = texts[api.nvim_get_current_buf()]
  local s = t and t[vim.v.foldstart]
  if not s then
    return vim.fn.foldtext()
  end
  return '+' .. vim.v.folddashes .. ' ' .. s .. ' (' .. (vim.v.foldend - vim.v.foldstart + 1) .. ' lines)'
end

local function apply(bufnr)
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    -- Setting 'foldexpr' makes the window evaluate it again. No :normal here: run from a callback
    -- while keys are pending (a mapping, feedkeys), it would run them in this window.
    if vim.wo[win].foldmethod ~= 'expr' then
      vim.wo[win].foldmethod = 'expr'
      vim.wo[win].foldlevel = 99 -- open; zc, zM close
    end
    vim.wo[win].foldexpr = "v:lua.require'ccdag.folds'.expr(v:lnum)"
    vim.wo[win].foldtext = "v:lua.require'ccdag.folds'.text()"
  end
end

--- Asks the server for bufnr's folding ranges and sets the folds; done(ranges) after.
function M.refresh(bufnr, done)
  local client = require('ccdag').get_client(bufnr)
  if not client then
    return
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  require('ccdag').request(client, 'textDocument/foldingRange', params, function(err, result)
    if err or not api.nvim_buf_is_valid(bufnr) then
      return
    end
    levels[bufnr] = M.levels(result)
    texts[bufnr] = M.texts(result)
    apply(bufnr)
    if done then
      done(result or {})
    end
  end, bufnr)
end

--- Turns folds on for a log buffer.
function M.attach(bufnr, group)
  local pending = false
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    buffer = bufnr,
    callback = function()
      if pending then
        return
      end
      pending = true
      vim.defer_fn(function()
        pending = false
        M.refresh(bufnr)
      end, 200)
    end,
  })
  api.nvim_create_autocmd('BufWinEnter', { group = group, buffer = bufnr, callback = function() apply(bufnr) end })
  api.nvim_create_autocmd('BufWipeout', { group = group, buffer = bufnr, callback = function() levels[bufnr] = nil texts[bufnr] = nil end })
  vim.defer_fn(function()
    M.refresh(bufnr)
  end, 100)
end

return M
