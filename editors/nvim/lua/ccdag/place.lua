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

--- Extmark options that show chunks ({{text, hl}, ...}) for line lnum where a person sees them.
function M.opts(bufnr, lnum, chunks)
  local text = ''
  for _, c in ipairs(chunks) do
    text = text .. c[1]
  end
  if M.fits(bufnr, lnum, text) then
    return { virt_text = chunks, virt_text_pos = 'eol', hl_mode = 'combine' }
  end
  -- Below the record, pointing up to it: on 0.7 a virtual line above a record moves the cursor
  -- of nvim_win_set_cursor to the next line when the window scrolls to it (jumps from the
  -- transcript or the resume preview landed one line off), and above the first line it is not shown.
  local below = { { '↑ ', chunks[1] and chunks[1][2] or 'Comment' } }
  vim.list_extend(below, chunks)
  return { virt_lines = { below } }
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
  api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  for l, ls in pairs(by_line) do
    local chunks = {}
    for j, lens in ipairs(ls) do
      table.insert(chunks, { lens.command and lens.command.title or 'Unresolved lens ...', 'LspCodeLens' })
      if j < #ls then
        table.insert(chunks, { ' | ', 'LspCodeLensSeparator' })
      end
    end
    if l < api.nvim_buf_line_count(bufnr) then
      pcall(api.nvim_buf_set_extmark, bufnr, ns, l, 0, M.opts(bufnr, l, chunks))
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
