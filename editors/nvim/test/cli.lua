-- The session browser with no server running: `ccdag sessions --format json` runs as a job, and
-- names a log under the folder it ran in by a path relative to it. <CR> opens that log even when
-- another folder is current by the time the job ends (a window's :lcd meanwhile). Run by
-- editors/nvim/test/run.sh (HOME: its tree, ccdag on PATH); exit code = verdict.
local api = vim.api
vim.opt.runtimepath:prepend(vim.env.CCDAG_NVIM_PLUGIN)
vim.cmd('filetype on')
vim.cmd('runtime plugin/ccdag.lua')
require('ccdag').setup({})
local sessions = require('ccdag.sessions')
local MAIN = vim.env.CCDAG_TEST_MAIN
local ID = vim.fn.fnamemodify(MAIN, ':t:r')

local name = 'no server: :CcdagSessions from the CLI, <CR> opens a log the CLI named relative to its folder after a window\'s :lcd elsewhere'
local ok, err = pcall(function()
  vim.cmd('cd ' .. vim.fn.fnameescape(vim.env.HOME)) -- the history is under it: the CLI says relative paths
  local cli = vim.fn.json_decode(vim.fn.system({ 'ccdag', 'sessions', '--format', 'json' }))
  local relative
  for _, s in ipairs(cli.sessions) do
    if s.id == ID then
      relative = s.path
    end
  end
  assert(relative and relative:sub(1, 1) ~= '/', 'the CLI does not name the log relative to ' .. vim.env.HOME .. ': ' .. tostring(relative))
  vim.cmd('CcdagSessions')
  local st = sessions.state
  assert(#require('ccdag').all_clients() == 0, 'a server runs: the list is not the CLI\'s')
  -- while the list loads, the user works on in the other window, in a folder of its own
  vim.cmd('wincmd p')
  vim.cmd('lcd ' .. vim.fn.fnameescape(vim.env.CCDAG_TEST_TMP))
  assert(vim.wait(60000, function()
    return st.done
  end, 20), 'the list did not come')
  assert(not st.err, 'the list failed: ' .. tostring(st.err))
  local at
  for i, s in ipairs(st.list) do
    if s.id == ID then
      at = i + 2
    end
  end
  assert(at, 'no row of ' .. ID)
  api.nvim_set_current_win(st.win)
  api.nvim_win_set_cursor(st.win, { at, 0 })
  api.nvim_feedkeys(api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  local got = api.nvim_buf_get_name(0)
  assert(vim.fn.resolve(got) == vim.fn.resolve(MAIN), 'opened ' .. got .. ', want ' .. MAIN .. ' (' .. relative .. ')')
  assert(api.nvim_buf_line_count(0) > 1, 'the opened log is empty')
end)
if not ok then
  io.stdout:write('FAIL - ' .. name .. '\n' .. tostring(err) .. '\n')
  vim.cmd('cquit 1')
end
io.stdout:write('ok   - ' .. name .. '\n')
vim.cmd('qa!')
