-- ccdag for Neovim: the ccdag language server on Claude Code session logs (.jsonl).
--
--   require('ccdag').setup({
--     cmd = 'ccdag',            -- server binary (string), or the whole command (list)
--     args = {},                -- extra arguments after `serve`
--     severity = {},            -- code -> 'error'|'warning'|'information'|'hint'|'off'
--     claude_version = '',      -- the Claude Code that will resume ('2.1.328'); '' = newest in the logs
--     all_jsonl = false,        -- false: only files under .claude/projects; true: every .jsonl
--     log_level = nil,          -- server log level: 'debug'|'info'|'warn'|'error'
--     log_file = nil,           -- server log file (default: :LspLog, at each line's level via window/logMessage)
--     trace = 'off',            -- LSP trace sent at initialize: 'off'|'messages'|'verbose'
--     graph = 'auto',           -- :CcdagGraph default: 'auto' (html if a browser can open), 'html', 'text'
--     follow = true,            -- reload unmodified session logs that grow on disk (lua/ccdag/follow.lua)
--     on_attach = nil, capabilities = nil,
--   })
--
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client), 0.8-0.10 (vim.lsp.start)
-- and 0.11+ (vim.lsp.config + vim.lsp.enable, with lsp/ccdag.lua on the runtimepath).
-- The graph (:CcdagGraph, text tree and HTML) is in lua/ccdag/graph.lua.
local M = {}

local api = vim.api

local defaults = {
  cmd = 'ccdag',
  args = {},
  severity = {},
  claude_version = '',
  all_jsonl = false,
  log_level = nil,
  log_file = nil,
  trace = 'off',
  graph = 'auto',
  follow = true,
  filetypes = { 'jsonl' },
  on_attach = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(defaults)
M._setup_done = false
M._method = nil -- how the client is started: 'enable', 'start', 'start_client'

local function has(v)
  return vim.fn.has('nvim-' .. v) == 1
end

local function notify(msg, level)
  vim.notify('ccdag: ' .. msg, level or vim.log.levels.INFO)
end
M.notify = notify

-- ---------------------------------------------------------------------------
-- configuration

-- A JSON object even when empty (an empty Lua table would encode as []).
local function object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return vim.deepcopy(t)
end

--- The server binary (first word of the command).
function M.binary()
  local c = M.config.cmd
  if type(c) == 'table' then
    return c[1] or 'ccdag'
  end
  return c or 'ccdag'
end

local said_missing = false

--- Whether the server binary can be run; if not, says so once (one clear message, never a Lua
--- stack trace from the LSP client's spawn) and returns false.
function M.available()
  local bin = M.binary()
  if vim.fn.executable(bin) == 1 then
    return true
  end
  if not said_missing then
    said_missing = true
    notify(string.format("`%s` not found on PATH: install ccdag (make install, or a release binary) or set cmd in require('ccdag').setup({ cmd = '/path/to/ccdag' }); :checkhealth ccdag", bin),
      vim.log.levels.WARN)
  end
  return false
end

--- The full command that starts the language server.
function M.server_cmd()
  local c = M.config
  local cmd
  if type(c.cmd) == 'table' then
    cmd = vim.deepcopy(c.cmd)
  else
    cmd = { c.cmd or 'ccdag', 'serve' }
  end
  for _, a in ipairs(c.args or {}) do
    table.insert(cmd, a)
  end
  if c.log_level then
    vim.list_extend(cmd, { '--log-level', c.log_level })
  end
  if c.log_file then
    vim.list_extend(cmd, { '--log-file', vim.fn.expand(c.log_file) })
  end
  return cmd
end

local function norm(path)
  return (path or ''):gsub('\\', '/')
end

local function buf_path(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' then
    return nil
  end
  return norm(vim.fn.fnamemodify(name, ':p'))
end
M.buf_path = buf_path

-- Where Claude Code keeps its logs: .claude/projects, or $CLAUDE_CONFIG_DIR/projects.
local function claude_projects_root(path)
  local s = path:find('/.claude/projects/', 1, true)
  if s then
    return path:sub(1, s + #'/.claude/projects' - 1)
  end
  local cfgdir = vim.env.CLAUDE_CONFIG_DIR
  if cfgdir and cfgdir ~= '' then
    local root = norm(vim.fn.fnamemodify(cfgdir, ':p')):gsub('/$', '') .. '/projects'
    if path:sub(1, #root + 1) == root .. '/' then
      return root
    end
  end
  return nil
end

--- Whether the ccdag server should attach to this buffer.
function M.wanted(bufnr)
  if vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local path = buf_path(bufnr)
  if not path then
    return false
  end
  if M.config.all_jsonl then
    return true
  end
  return claude_projects_root(path) ~= nil
end

--- The root directory one server serves: all of .claude/projects (one server for every
--- session), or for logs elsewhere the folder of the session's main log.
function M.root_dir(path)
  path = norm(path)
  local claude = claude_projects_root(path)
  if claude then
    return claude
  end
  local main = path:match('^(.*)/[^/]+/subagents/')
  if main then
    return main
  end
  return vim.fn.fnamemodify(path, ':h')
end

local function send_settings(client)
  local params = { settings = client.config.settings }
  if has('0.11') then
    client:notify('workspace/didChangeConfiguration', params)
  else
    client.notify('workspace/didChangeConfiguration', params)
  end
end

--- The client configuration (also what lsp/ccdag.lua returns for vim.lsp.config on 0.11+).
function M.lsp_config()
  local c = M.config
  local conf = {
    name = 'ccdag',
    cmd = M.server_cmd(),
    filetypes = c.filetypes,
    init_options = { severity = object(c.severity), claudeVersion = c.claude_version or '' },
    settings = { ccdag = { severity = object(c.severity), claudeVersion = c.claude_version or '' } },
    trace = c.trace,
    on_init = function(client)
      -- Neovim 0.7 does not send the settings by itself.
      pcall(send_settings, client)
    end,
    on_attach = function(client, bufnr)
      require('ccdag.reading').attach(client, bufnr)
      if c.on_attach then
        c.on_attach(client, bufnr)
      end
    end,
    capabilities = c.capabilities,
    -- the session browser's streamed rows (partial results of ccdag/sessions) arrive on $/progress
    handlers = {
      ['$/progress'] = function(...)
        return require('ccdag.sessions').on_progress(...)
      end,
    },
  }
  if has('0.11') then
    conf.root_dir = function(bufnr, on_dir)
      if M.wanted(bufnr) then
        on_dir(M.root_dir(buf_path(bufnr)))
      end
    end
  end
  return conf
end

-- ---------------------------------------------------------------------------
-- starting the client

local clients07 = {} -- root_dir -> client id (Neovim 0.7)

local function client_stopped(client)
  if not client then
    return true
  end
  if has('0.11') then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- Start (or reuse) the server for a buffer and attach it (0.7 to 0.10; 0.11+ uses vim.lsp.enable).
--- With force, also a .jsonl outside .claude/projects when all_jsonl is off.
function M.attach(bufnr, force)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if not buf_path(bufnr) or not (force or M.wanted(bufnr)) then
    return nil
  end
  if not M.available() then
    return nil
  end
  local conf = M.lsp_config()
  conf.root_dir = M.root_dir(buf_path(bufnr))
  if vim.lsp.start then
    return vim.lsp.start(conf, { bufnr = bufnr })
  end
  local id = clients07[conf.root_dir]
  if not id or client_stopped(vim.lsp.get_client_by_id(id)) then
    conf.workspace_folders = {
      { uri = vim.uri_from_fname(conf.root_dir), name = conf.root_dir },
    }
    id = vim.lsp.start_client(conf)
    clients07[conf.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- tbl_deep_extend merges lists index by index: take the user's lists whole.
  for _, k in ipairs({ 'args', 'filetypes' }) do
    if opts and opts[k] then
      M.config[k] = opts[k]
    end
  end
  if opts and type(opts.cmd) == 'table' then
    M.config.cmd = opts.cmd
  end
  M._setup_done = true

  -- Live sessions: reload unmodified session logs that grow on disk (lua/ccdag/follow.lua).
  if M.config.follow then
    require('ccdag.follow').setup(M.config.filetypes, M.wanted)
  else
    require('ccdag.follow').teardown()
  end

  if has('0.11') and vim.lsp.config and vim.lsp.enable then
    M._method = 'enable'
    if vim.fn.executable(M.binary()) ~= 1 then
      -- said when a session log opens (the FileType below), not at startup
      api.nvim_create_autocmd('FileType', {
        group = api.nvim_create_augroup('ccdag_missing', { clear = true }),
        pattern = M.config.filetypes,
        callback = function(ev)
          if M.wanted(ev.buf) then
            M.available()
          end
        end,
      })
      return
    end
    vim.lsp.config('ccdag', M.lsp_config())
    vim.lsp.enable('ccdag')
    return
  end

  M._method = vim.lsp.start and 'start' or 'start_client'
  local group = api.nvim_create_augroup('ccdag', { clear = true })
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(ev)
      M.attach(ev.buf)
    end,
  })
  -- Buffers that were already open.
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype) then
      M.attach(b)
    end
  end
end

-- ---------------------------------------------------------------------------
-- talking to the client

--- The ccdag client attached to a buffer, if any.
function M.get_client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = 'ccdag' })[1]
  end
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'ccdag' then
      return c
    end
  end
  return nil
end

--- Every running ccdag client.
function M.all_clients()
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ name = 'ccdag' })
  else
    list = {}
    for _, c in pairs(vim.lsp.get_active_clients()) do
      if c.name == 'ccdag' then
        table.insert(list, c)
      end
    end
  end
  return list
end

function M.request(client, method, params, handler, bufnr)
  if has('0.11') then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout, bufnr)
  if has('0.11') then
    return client:request_sync(method, params, timeout, bufnr)
  end
  return client.request_sync(method, params, timeout, bufnr)
end

local function jump(location, encoding)
  encoding = encoding or 'utf-16'
  if vim.lsp.util.show_document then
    return vim.lsp.util.show_document(location, encoding, { focus = true })
  end
  return vim.lsp.util.jump_to_location(location, encoding)
end
M._jump = jump

-- ---------------------------------------------------------------------------
-- :CcdagParent

--- Go to Parent is the server's command `ccdag.parent` (it knows the parent span: parentUuid,
--- logicalParentUuid, or the call that spawned a sub-agent); this only asks and jumps.
function M.parent()
  local bufnr = api.nvim_get_current_buf()
  local client = M.get_client(bufnr)
  if not client then
    return notify('no language server attached to this buffer (see :checkhealth ccdag)', vim.log.levels.WARN)
  end
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local params = {
    command = 'ccdag.parent',
    arguments = { { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = row, character = 0 } } },
  }
  local encoding = client.offset_encoding or 'utf-16'
  M.request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      return notify('Go to Parent failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if type(result) ~= 'table' or type(result.location) ~= 'table' then
      return notify('no parent to go to: ' .. tostring(type(result) == 'table' and result.reason or 'no answer'), vim.log.levels.WARN)
    end
    jump(result.location, encoding)
  end, bufnr)
end

--- :CcdagGraph [text|html] (lua/ccdag/graph.lua)
function M.graph(mode)
  return require('ccdag.graph').graph(mode)
end

return M
