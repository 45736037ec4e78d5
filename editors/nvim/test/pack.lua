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
vim.lsp.set_log_level('info')
local logged = {}
local on_log = vim.lsp.handlers['window/logMessage']
vim.lsp.handlers['window/logMessage'] = function(err, result, ctx, config)
  table.insert(logged, result)
  return on_log(err, result, ctx, config)
end
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

-- The server's info lines reach :LspLog at their level (window/logMessage), not as [ERROR] (stderr).
vim.wait(10000, function()
  for _, m in ipairs(logged) do
    if m.message:find('workspace symbols indexed', 1, true) then
      return true
    end
  end
  return false
end, 50)
local started
for _, m in ipairs(logged) do
  if m.message:find('ccdag language server started', 1, true) then
    started = m
  end
end
check(started ~= nil and started.type == 3, 'the server says it started as window/logMessage, type Info: ' .. vim.inspect(started))
local lsplog = table.concat(vim.fn.readfile(vim.lsp.get_log_path()), '\n')
check(not lsplog:find('%[ERROR%][^\n]*info[^\n]*ccdag'), ':LspLog has no info line of the server as [ERROR]')
check(lsplog:find('%[INFO%][^\n]*ccdag language server started') ~= nil, ':LspLog has the server start as [INFO]')

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
