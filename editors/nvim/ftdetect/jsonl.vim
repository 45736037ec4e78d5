" JSON Lines (Claude Code session logs). Neovim 0.10+ knows `jsonl` already;
" 0.7 to 0.9 do not. setfiletype leaves a filetype set by an earlier rule alone.
autocmd BufNewFile,BufRead *.jsonl setfiletype jsonl
