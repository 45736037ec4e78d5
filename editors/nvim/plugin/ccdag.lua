-- ccdag: commands. The language server starts once require('ccdag').setup() has run
-- (or, on Neovim 0.11+, after vim.lsp.enable('ccdag')).
if vim.g.loaded_ccdag then
  return
end
vim.g.loaded_ccdag = true

local function ccdag()
  return require('ccdag')
end

vim.api.nvim_create_user_command('CcdagGraph', function(o)
  ccdag().graph(o.args)
end, {
  nargs = '?',
  complete = function()
    return { 'text', 'html' }
  end,
  desc = 'ccdag: show the workflow graph of this session (text tree or HTML picture)',
})

vim.api.nvim_create_user_command('CcdagParent', function()
  ccdag().parent()
end, { desc = 'ccdag: jump to the parent record of the record under the cursor' })

vim.api.nvim_create_user_command('CcdagStart', function()
  if not ccdag().attach(0, true) then
    vim.notify('ccdag: this buffer has no file', vim.log.levels.WARN)
  end
end, { desc = 'ccdag: start the language server for this buffer' })

vim.api.nvim_create_user_command('CcdagTranscript', function(o)
  require('ccdag.reading').transcript(o.bang)
end, { bang = true, desc = 'ccdag: the session as a transcript (! for every branch); <CR> jumps to the log line' })

vim.api.nvim_create_user_command('CcdagLens', function()
  require('ccdag.reading').lens()
end, { desc = 'ccdag: run a code lens of the cursor line that has a command (Show Workflow Graph, Open Transcript)' })

vim.api.nvim_create_user_command('CcdagSessions', function()
  require('ccdag.sessions').sessions()
end, { desc = 'ccdag: browse the Claude Code sessions (title, time, tokens, cost, resume state, findings) and open one' })

vim.api.nvim_create_user_command('CcdagResume', function()
  require('ccdag.resume').resume()
end, { desc = 'ccdag: what claude --resume will load of this session (loader, records sent, dropped); <CR> jumps to the record' })
