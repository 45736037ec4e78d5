-- ccdag: where Neovim 0.7-0.9 draws the figures of a log line (docs/spec.md §10).
--
-- A log line is a JSON record of hundreds or thousands of characters: text drawn at its end
-- ('eol') is off screen (nowrap) or after many wrapped screen lines. So a figure goes at the end
-- of the line only when the line and the figure fit in the window; otherwise on a virtual line
-- right below the record, marked with an arrow pointing up to it. 0.10+ draws inlay hints
-- natively and keeps what works.
local M = {}
local api = vim.api

--- Whether text fits after line lnum (0-based) of bufnr in the window showing it.
function M.fits(bufnr, lnum, text)
  local line = api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1] or ''
  local win = vim.fn.bufwinid(bufnr)
  local width = win ~= -1 and api.nvim_win_get_width(win) or vim.o.columns
  -- a long line: do not measure all of it
  if #line > width then
    return false
  end
  return vim.fn.strdisplaywidth(line) + 2 + vim.fn.strdisplaywidth(text) <= width - 8
end

-- Neovim 0.7 draws a closed fold as a blank line when a virtual line sits right above it (below
-- the line before, or above its first line): zc on a turn made the turn vanish. Six lines show it
-- with `nvim --clean`: a buffer of six lines, a virt_lines extmark on line 1, `:2,4fold`. So a
-- figure goes on a virtual line only where no closed fold follows it nor holds its line; the keys
-- that open and close folds place the figures again (M.guard_folds).
local function near_closed_fold(bufnr, lnum)
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    return false
  end
  local n = api.nvim_buf_line_count(bufnr)
  return api.nvim_win_call(win, function()
    return vim.fn.foldclosed(lnum + 1) ~= -1 or (lnum + 2 <= n and vim.fn.foldclosed(lnum + 2) == lnum + 2)
  end)
end
M._near_closed_fold = near_closed_fold

--- Extmark options that show chunks ({{text, hl}, ...}) for line lnum where a person sees them.
function M.opts(bufnr, lnum, chunks)
  local text = ''
  for _, c in ipairs(chunks) do
    text = text .. c[1]
  end
  if M.fits(bufnr, lnum, text) or near_closed_fold(bufnr, lnum) then
    return { virt_text = chunks, virt_text_pos = 'eol', hl_mode = 'combine' }
  end
  -- Below the record, pointing up to it: on 0.7 a virtual line above a record moves the cursor
  -- of nvim_win_set_cursor to the next line when the window scrolls to it (jumps from the
  -- transcript or the resume preview landed one line off), and above the first line it is not shown.
  local below = { { '↑ ', chunks[1] and chunks[1][2] or 'Comment' } }
  vim.list_extend(below, chunks)
  return { virt_lines = { below } }
end

-- What is drawn where, to place it again when folds open or close: bufnr -> ns -> lnum -> {id, chunks}.
local drawn = {}

--- Clears namespace ns of bufnr and what M.set recorded there.
function M.clear(bufnr, ns)
  api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  if drawn[bufnr] then
    drawn[bufnr][ns] = nil
  end
end

--- Shows chunks for line lnum (0-based) of bufnr in namespace ns, placed by M.opts.
function M.set(bufnr, ns, lnum, chunks)
  local ok, id = pcall(api.nvim_buf_set_extmark, bufnr, ns, lnum, 0, M.opts(bufnr, lnum, chunks))
  if ok then
    drawn[bufnr] = drawn[bufnr] or {}
    drawn[bufnr][ns] = drawn[bufnr][ns] or {}
    drawn[bufnr][ns][lnum] = { id = id, chunks = chunks }
  end
end

--- Places again what M.set drew in bufnr (after folds opened or closed).
function M.refit(bufnr)
  for ns, lines in pairs(drawn[bufnr] or {}) do
    for lnum, d in pairs(lines) do
      local mark = api.nvim_buf_get_extmark_by_id(bufnr, ns, d.id, {})
      if mark and mark[1] then
        lnum = mark[1]
        local o = M.opts(bufnr, lnum, d.chunks)
        o.id = d.id
        pcall(api.nvim_buf_set_extmark, bufnr, ns, lnum, 0, o)
      end
    end
  end
end

-- The keys that open or close folds.
local fold_keys = { 'zc', 'zC', 'za', 'zA', 'zo', 'zO', 'zv', 'zx', 'zX', 'zm', 'zM', 'zr', 'zR', 'zn', 'zN', 'zi', 'zE', 'zd', 'zD' }

--- Before 0.10 (where figures go on virtual lines): the fold keys of bufnr place the figures again
--- after they run, so a closed fold is never drawn blank.
function M.guard_folds(bufnr)
  if vim.fn.has('nvim-0.10') == 1 then
    return
  end
  for _, key in ipairs(fold_keys) do
    vim.keymap.set('n', key, function()
      local count = vim.v.count > 0 and tostring(vim.v.count) or ''
      vim.cmd('normal! ' .. count .. key)
      M.refit(bufnr)
    end, { buffer = bufnr, silent = true, desc = 'ccdag: ' .. key .. ', then place the figures again' })
  end
  api.nvim_create_autocmd('BufWipeout', { buffer = bufnr, callback = function() drawn[bufnr] = nil end })
end

--- Draws code lenses as vim.lsp.codelens.display does (same namespace, so its save and clear keep
--- working and :CcdagLens runs them), placed by M.opts.
function M.display_lenses(lenses, bufnr, ns)
  if not api.nvim_buf_is_valid(bufnr) then
    return -- the answer came after the buffer was wiped
  end
  local by_line = {}
  for _, lens in pairs(lenses or {}) do
    local l = lens.range.start.line
    by_line[l] = by_line[l] or {}
    table.insert(by_line[l], lens)
  end
  M.clear(bufnr, ns)
  for l, ls in pairs(by_line) do
    local chunks = {}
    for j, lens in ipairs(ls) do
      table.insert(chunks, { lens.command and lens.command.title or 'Unresolved lens ...', 'LspCodeLens' })
      if j < #ls then
        table.insert(chunks, { ' | ', 'LspCodeLensSeparator' })
      end
    end
    if l < api.nvim_buf_line_count(bufnr) then
      M.set(bufnr, ns, l, chunks)
    end
  end
end

local wrapped = false

--- Before 0.10: draws the ccdag server's lenses with M.display_lenses, other servers' as before.
function M.wrap_codelens()
  if wrapped or vim.fn.has('nvim-0.10') == 1 then
    return
  end
  wrapped = true
  local cl = vim.lsp.codelens
  local orig = cl.display
  cl.display = function(lenses, bufnr, client_id)
    local c = vim.lsp.get_client_by_id(client_id)
    if c and c.name == 'ccdag' and cl.__namespaces then
      return M.display_lenses(lenses, bufnr, cl.__namespaces[client_id])
    end
    return orig(lenses, bufnr, client_id)
  end
end

return M
