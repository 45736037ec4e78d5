-- The test's init file: the plugin loaded the way a user loads it.
vim.opt.runtimepath:prepend(vim.env.CCDAG_NVIM_PLUGIN)
vim.cmd('filetype on')
require('ccdag').setup({
  -- default `cmd`: ccdag from PATH (the test puts bin/ on PATH)
  severity = { ['missing-agent-file'] = 'warning' }, -- default information: proves the setting reaches the server
  claude_version = '2.1.30', -- the log's own is 2.1.27: proves the setting reaches the server (:CcdagResume)
  log_level = 'debug',
  log_file = vim.env.CCDAG_TEST_TMP .. '/server.log',
})
