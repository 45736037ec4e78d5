-- Run by pack.sh after startup: the plugin was loaded from pack/*/start, nothing else was done.
local failed = 0
local function check(cond, what)
  io.stdout:write((cond and 'ok   - ' or 'FAIL - ') .. what .. '\n')
  if not cond then
    failed = failed + 1
  end
end
local function done()
  io.stdout:write(string.format('nvim pack: %d failed\n', failed))
  vim.cmd(failed > 0 and 'cquit 1' or 'qa!')
end

local pack = vim.env.CCDAG_TEST_PACK
local rtp = vim.api.nvim_list_runtime_paths()
check(vim.tbl_contains(rtp, pack), 'pack/ccdag/start/ccdag is on the runtime path')
check(vim.fn.exists(':CcdagGraph') == 2 and vim.g.loaded_ccdag == true, 'plugin/ccdag.lua ran at startup (:CcdagGraph)')
check(vim.bo.filetype == 'jsonl', 'the session log has the jsonl filetype (' .. vim.bo.filetype .. ')')

local ccdag = require('ccdag')
check(debug.getinfo(ccdag.setup, 'S').source:find(pack, 1, true) ~= nil, 'require("ccdag") comes from the package')
ccdag.setup({})
vim.cmd('edit') -- the buffer was read before setup(): read it again, as opening a log does
local client
vim.wait(30000, function()
  client = ccdag.all_clients()[1]
  return client ~= nil and client.initialized and client.server_capabilities ~= nil
end, 50)
check(client ~= nil and client.server_capabilities ~= nil, 'setup() started ccdag serve on the log')
if not client then
  return done()
end

vim.cmd('checkhealth ccdag')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(report:find('ccdag: binary', 1, true) ~= nil, ':checkhealth ccdag found lua/ccdag/health.lua')
-- Every capability the server answered, and only those: the health report is the initialize result.
local offered = report:match('server offers %((%d+)%)')
local n = 0
for k, v in pairs(client.server_capabilities) do
  if v ~= false and v ~= vim.NIL then
    n = n + 1
    local name = tostring(k):gsub('Provider$', '')
    check(report:find(name, 1, true) ~= nil, ':checkhealth lists ' .. name)
  end
end
check(n > 4 and tonumber(offered) == n, string.format(':checkhealth counts %s capabilities, the server answered %d', tostring(offered), n))
local cmds = client.server_capabilities.executeCommandProvider
if type(cmds) == 'table' and cmds.commands and cmds.commands[1] then
  check(report:find(cmds.commands[1], 1, true) ~= nil, ':checkhealth lists the command ' .. cmds.commands[1])
end
done()
