-- Neovim 0.11+: the `ccdag` config for vim.lsp.config / vim.lsp.enable('ccdag').
-- require('ccdag').setup({...}) enables it with your settings; enabling it yourself
-- (vim.lsp.enable('ccdag')) uses the defaults: `ccdag serve` from PATH, .jsonl files
-- under .claude/projects only.
return require('ccdag').lsp_config()
