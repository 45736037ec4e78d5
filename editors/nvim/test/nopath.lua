-- Without ccdag on PATH: opening session logs says so once, clearly, and raises no error (no Lua
-- stack trace from the LSP client). Run by editors/nvim/test/run.sh with a PATH that has no ccdag;
-- exit code = verdict.
local said = {}
vim.notify = function(msg, level)
  table.insert(said, { msg = msg, level = level })
end
vim.opt.runtimepath:prepend(vim.env.CCDAG_NVIM_PLUGIN)
vim.cmd('filetype on')
vim.cmd('runtime plugin/ccdag.lua')
local ok, err = pcall(function()
  require('ccdag').setup({})
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.CCDAG_TEST_MAIN))
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.CCDAG_TEST_OTHER))
  vim.cmd('CcdagSessions')
  vim.wait(300)
end)
local fails = {}
if not ok then
  table.insert(fails, 'an error: ' .. tostring(err))
end
if vim.v.errmsg ~= '' then
  table.insert(fails, 'an error message: ' .. vim.v.errmsg)
end
local about = 0
for _, s in ipairs(said) do
  if s.msg:find('not found on PATH', 1, true) then
    about = about + 1
  end
end
if about ~= 1 or #said ~= 1 then
  table.insert(fails, 'said, want one "not found on PATH": ' .. vim.inspect(said))
end
if #fails > 0 then
  io.stdout:write('FAIL - without ccdag on PATH: ' .. table.concat(fails, '; ') .. '\n')
  vim.cmd('cquit 1')
end
io.stdout:write('ok   - without ccdag on PATH: one message, no error: ' .. said[1].msg .. '\n')
vim.cmd('qa!')
