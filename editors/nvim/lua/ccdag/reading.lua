-- ccdag: reading a session in Neovim (docs/spec.md §7).
--
-- :CcdagTranscript  the session (request ccdag/transcript) as text, not Markdown source, in a read-only buffer
--                   beside the log; <CR> jumps to the log line a transcript line comes from;
--                   it follows the log (refetched when the session's diagnostics change).
-- inlay hints       0.10+: native (vim.lsp.inlay_hint), at the start of each record line.
--                   0.7-0.9: virtual text at the end of a short line, else on a virtual line
--                   right below the record (ccdag.place: after a line of 2 000 characters nobody
--                   sees it), for the visible lines only (a request costs the range).
-- code lens         vim.lsp.codelens, drawn on 0.7-0.9 where hints are (ccdag.place); :CcdagLens
--                   runs a lens of the cursor's line that has a command (Show Workflow Graph, Open
--                   Transcript: client commands registered here); the figures only show.
-- folds             from the server's folding ranges, a 'foldexpr' (ccdag.folds), 0.7 too.
local M = {}
local api = vim.api

local function ccdag()
  return require('ccdag')
end

local function has(v)
  return vim.fn.has('nvim-' .. v) == 1
end

local ns = api.nvim_create_namespace('ccdag_hints')
local side = require('ccdag.sideview')

-- ---------------------------------------------------------------------------
-- transcript

local views = {} -- transcript bufnr -> { log = bufnr, lines = map }

--- The log line (uri, 0-based line) a 0-based transcript line comes from: the last map entry at
--- or before it.
function M.source(map, tline)
  local best
  for _, e in ipairs(map or {}) do
    if e.transcript <= tline then
      best = e
    else
      break
    end
  end
  return best
end

local function fetch(tbuf, done)
  local v = views[tbuf]
  if not v or not api.nvim_buf_is_valid(tbuf) or not api.nvim_buf_is_valid(v.log) then
    return
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(v.log) }, allBranches = v.all or false }
  side.request(v.log, 'ccdag/transcript', params, 'transcript', function(result)
    if api.nvim_buf_is_valid(tbuf) then
      -- as text, not Markdown source: no escapes, link targets, ** or backticks (ccdag.plain)
      local md = vim.split(result.markdown or '', '\n', { plain = true })
      side.set_text(tbuf, table.concat(require('ccdag.plain').lines(md), '\n'))
      views[tbuf].lines = result.lines or {}
    end
  end, done)
end

--- Jumps from the cursor's transcript line to its log line.
function M.jump()
  local v = views[api.nvim_get_current_buf()]
  if not v then
    return
  end
  local e = M.source(v.lines, api.nvim_win_get_cursor(0)[1] - 1)
  if e then
    side.goto_log(e.uri, e.line)
  end
end

--- Opens the transcript of the current log in a split (or refreshes the one already open).
function M.transcript(all)
  local log = api.nvim_get_current_buf()
  if not ccdag().get_client(log) then
    vim.notify('ccdag: no ccdag language server on this buffer', vim.log.levels.WARN)
    return
  end
  for tb, v in pairs(views) do
    if v.log == log and api.nvim_buf_is_valid(tb) then
      v.all = all
      fetch(tb)
      return tb
    end
  end
  local tbuf = side.open(log, {
    name = 'ccdag://transcript/' .. vim.fn.fnamemodify(api.nvim_buf_get_name(log), ':t:r') .. '.md',
    filetype = 'ccdagtranscript',
    jump = M.jump,
    refetch = fetch,
    on_wipe = function(b)
      views[b] = nil
    end,
  })
  api.nvim_buf_call(tbuf, function()
    vim.cmd([[
      syntax match ccdagTranscriptHeading /^#\+ .*/
      syntax match ccdagTranscriptQuote /^> .*/
      syntax match ccdagTranscriptFold /^[ >]*▸ .*/
      syntax match ccdagTranscriptLine /\[L\d\+\]/
      highlight default link ccdagTranscriptHeading Title
      highlight default link ccdagTranscriptQuote String
      highlight default link ccdagTranscriptFold Comment
      highlight default link ccdagTranscriptLine Underlined
    ]])
  end)
  vim.wo.wrap = true
  vim.wo.linebreak = true
  views[tbuf] = { log = log, lines = {}, all = all }
  fetch(tbuf)
  return tbuf
end

-- ---------------------------------------------------------------------------
-- inlay hints before 0.10: virtual text for the visible lines

local function hint_range(bufnr)
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    return nil
  end
  local top, bot
  api.nvim_win_call(win, function()
    top, bot = vim.fn.line('w0'), vim.fn.line('w$')
  end)
  return top - 1, bot
end

function M.refresh_hints(bufnr)
  local client = ccdag().get_client(bufnr)
  local top, bot = hint_range(bufnr)
  if not client or not top then
    return
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = top, character = 0 }, ['end'] = { line = bot, character = 0 } },
  }
  ccdag().request(client, 'textDocument/inlayHint', params, function(err, result)
    if err or not api.nvim_buf_is_valid(bufnr) then
      return
    end
    local place = require('ccdag.place')
    place.clear(bufnr, ns)
    for _, h in ipairs(result or {}) do
      local label = type(h.label) == 'string' and h.label or ''
      place.set(bufnr, ns, h.position.line, { { '◂ ' .. label, 'Comment' } })
    end
  end, bufnr)
end

-- ---------------------------------------------------------------------------
-- attaching

local attached = {}

--- Turns on hints and lenses for a buffer the ccdag client attached to.
function M.attach(client, bufnr)
  if attached[bufnr] then
    return
  end
  attached[bufnr] = true
  local group = api.nvim_create_augroup('ccdag_reading_' .. bufnr, { clear = true })
  local function lenses()
    pcall(vim.lsp.codelens.refresh)
  end
  require('ccdag.place').wrap_codelens()
  require('ccdag.place').guard_folds(bufnr)
  require('ccdag.folds').attach(bufnr, group)
  if has('0.10') and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  else
    local hints = function()
      M.refresh_hints(bufnr)
    end
    api.nvim_create_autocmd({ 'WinScrolled', 'BufEnter', 'DiagnosticChanged' }, { group = group, buffer = bufnr, callback = hints })
    vim.defer_fn(hints, 100)
  end
  api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'DiagnosticChanged' }, { group = group, buffer = bufnr, callback = lenses })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = bufnr,
    callback = function()
      attached[bufnr] = nil
    end,
  })
  vim.defer_fn(lenses, 100)
end

-- ---------------------------------------------------------------------------
-- :CcdagLens

-- Runs a lens's command: a client command (vim.lsp.commands), else the server's.
local function run_lens(client, bufnr, cmd)
  local fn = (client.commands or {})[cmd.command] or vim.lsp.commands[cmd.command]
  if fn then
    return fn(cmd, { bufnr = bufnr, client_id = client.id })
  end
  ccdag().request(client, 'workspace/executeCommand', { command = cmd.command, arguments = cmd.arguments }, function(err)
    if err then
      ccdag().notify(cmd.title .. ': ' .. tostring(err.message or err), vim.log.levels.WARN)
    end
  end, bufnr)
end

--- Runs a code lens of the cursor's line that has a command (a choice when several do). The
--- figures (the session's, a turn's) are lenses with an empty command, to read, not run:
--- vim.lsp.codelens.run() offered them too and sent command '' to the server.
function M.lens()
  local bufnr = api.nvim_get_current_buf()
  local client = ccdag().get_client(bufnr)
  if not client then
    return ccdag().notify('no ccdag language server on this buffer', vim.log.levels.WARN)
  end
  local line = api.nvim_win_get_cursor(0)[1] - 1
  -- asked afresh (not vim.lsp.codelens.get, whose form changes across versions)
  ccdag().request(client, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, result)
    vim.schedule(function()
      if err then
        return ccdag().notify('code lenses: ' .. tostring(err.message or err), vim.log.levels.WARN)
      end
      if api.nvim_get_current_buf() ~= bufnr then
        return -- the commands act on the current buffer: not the log any more
      end
      local cmds, shown = {}, 0
      for _, l in ipairs(result or {}) do
        if l.range.start.line == line and l.command then
          shown = shown + 1
          if (l.command.command or '') ~= '' then
            table.insert(cmds, l.command)
          end
        end
      end
      if #cmds == 0 then
        return ccdag().notify(shown > 0 and 'nothing to run on this line: its code lenses only show figures' or 'no code lens on this line')
      elseif #cmds == 1 then
        return run_lens(client, bufnr, cmds[1])
      end
      vim.ui.select(cmds, {
        prompt = 'Code lens:',
        format_item = function(c)
          return c.title
        end,
      }, function(c)
        if c then
          run_lens(client, bufnr, c)
        end
      end)
    end)
  end, bufnr)
end

-- The code lenses' commands run in the client (the server names them; VS Code registers the same).
vim.lsp.commands['ccdag.showWorkflowGraph'] = function()
  ccdag().graph('')
end
vim.lsp.commands['ccdag.openTranscript'] = function()
  M.transcript(false)
end

return M
