-- :checkhealth ccdag (Neovim 0.7 to 0.11+)
local M = {}

-- vim.health.start/ok/... (0.10+), vim.health.report_* (0.9), health#report_* (0.7, 0.8).
local function reporter(name)
  local h = vim.health
  if h and h[name] then
    return h[name]
  end
  if h and h['report_' .. name] then
    return h['report_' .. name]
  end
  return function(msg, advice)
    if advice then
      return vim.fn['health#report_' .. name](msg, advice)
    end
    return vim.fn['health#report_' .. name](msg)
  end
end

local start, ok, warn, err, info =
  reporter('start'), reporter('ok'), reporter('warn'), reporter('error'), reporter('info')

-- capability_lines describes a server's capabilities (the initialize result): one line naming every
-- capability it offers (a key whose value is not false/null), sorted, and one per list it carries
-- (the commands of executeCommandProvider, the trigger characters...).
local islist = vim.islist or vim.tbl_islist

function M.capability_lines(caps)
  if type(caps) ~= 'table' then
    return { 'the server has not answered initialize yet' }
  end
  local names, lists = {}, {}
  for k, v in pairs(caps) do
    if v ~= false and v ~= vim.NIL then
      table.insert(names, (tostring(k):gsub('Provider$', '')))
      if type(v) == 'table' then
        for field, list in pairs(v) do
          if type(list) == 'table' and islist(list) and #list > 0 then
            local items = {}
            for _, x in ipairs(list) do
              table.insert(items, tostring(x))
            end
            table.insert(lists, string.format('%s.%s: %s', k, field, table.concat(items, ', ')))
          end
        end
      end
    end
  end
  table.sort(names)
  table.sort(lists)
  local out = { string.format('server offers (%d): %s', #names, table.concat(names, ', ')) }
  vim.list_extend(out, lists)
  return out
end

function M.check()
  local ccdag = require('ccdag')
  local cfg = ccdag.config

  start('ccdag: setup')
  local v = vim.version and vim.version()
  if v then
    info(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  end
  if ccdag._setup_done then
    ok('setup() has run; the client is started with ' .. ({
      enable = 'vim.lsp.enable (0.11+)',
      start = 'vim.lsp.start (0.8 to 0.10)',
      start_client = 'vim.lsp.start_client + buf_attach_client (0.7)',
    })[ccdag._method or ''] or tostring(ccdag._method))
  elseif vim.fn.has('nvim-0.11') == 1 then
    info("setup() has not run: call require('ccdag').setup() or vim.lsp.enable('ccdag')")
  else
    warn("setup() has not run: the server starts only after require('ccdag').setup()")
  end
  info('files: ' .. (cfg.all_jsonl and 'every .jsonl' or '.jsonl under .claude/projects'))
  info('server command: ' .. table.concat(ccdag.server_cmd(), ' '))
  if next(cfg.severity or {}) then
    local parts = {}
    for code, level in pairs(cfg.severity) do
      table.insert(parts, code .. '=' .. tostring(level))
    end
    table.sort(parts)
    info('severity overrides: ' .. table.concat(parts, ', '))
  end

  start('ccdag: binary')
  local bin = ccdag.binary()
  local exe = vim.fn.exepath(bin)
  if exe == '' then
    err(bin .. ' not found or not executable', {
      'install it: go install github.com/ccdag/ccdag/cmd/ccdag@latest',
      "or set its path: require('ccdag').setup({ cmd = '/path/to/ccdag' })",
    })
  else
    ok('found ' .. exe)
    local out = vim.fn.system({ exe, 'version' })
    if vim.v.shell_error == 0 then
      ok('`ccdag version`: ' .. vim.trim(out))
    else
      err('`' .. exe .. ' version` failed (exit ' .. vim.v.shell_error .. '): ' .. vim.trim(out))
    end
  end

  start('ccdag: language server')
  local clients = ccdag.all_clients()
  if #clients == 0 then
    info('no ccdag client is running (open a session log: a .jsonl under .claude/projects)')
  end
  for _, c in ipairs(clients) do
    local bufs = {}
    for b in pairs(c.attached_buffers or {}) do
      if vim.api.nvim_buf_is_valid(b) then -- 0.7 keeps a wiped buffer in the table
        table.insert(bufs, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t'))
      end
    end
    table.sort(bufs)
    local stopped
    if vim.fn.has('nvim-0.11') == 1 then
      stopped = c:is_stopped()
    else
      stopped = c.is_stopped()
    end
    local line = string.format('client %d (%s), root %s, %d buffer(s): %s', c.id,
      stopped and 'stopped' or (c.initialized and 'running' or 'starting'),
      tostring(c.config and c.config.root_dir), #bufs, table.concat(bufs, ', '))
    if stopped then
      warn(line)
    else
      ok(line)
    end
    -- What the server answered to initialize (c.server_capabilities), not a list of our own.
    for _, line in ipairs(M.capability_lines(c.server_capabilities)) do
      info(line)
    end
  end
end

return M
