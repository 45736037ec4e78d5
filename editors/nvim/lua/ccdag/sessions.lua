-- :CcdagSessions: the session browser (docs/spec.md §10). The rows come from the server's
-- ccdag/sessions request (the rows of `ccdag sessions --format json` plus uri), or, with no server
-- running, from `ccdag sessions --format json` itself. Shown with telescope when it is installed,
-- else vim.ui.select; choosing a session opens its main log.
local M = {}
local api = vim.api

local function ccdag()
  return require('ccdag')
end

--- "2h ago", "3 d ago", or the date, from an ISO timestamp.
function M.relative(ts, now)
  if type(ts) ~= 'string' or #ts < 19 then
    return '-'
  end
  local y, mo, d, h, mi, s = ts:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)')
  if not y then
    return '-'
  end
  -- os.time reads a table as local time; the timestamps are UTC: correct by the offset.
  local t = os.time({ year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h), min = tonumber(mi), sec = tonumber(s) })
  local utc_now = now or os.time(os.date('!*t'))
  local ago = utc_now - t
  if ago < 0 then
    return ts:sub(1, 10)
  elseif ago < 3600 then
    return math.floor(ago / 60) .. ' min ago'
  elseif ago < 86400 then
    return math.floor(ago / 3600) .. ' h ago'
  elseif ago < 30 * 86400 then
    return math.floor(ago / 86400) .. ' d ago'
  end
  return ts:sub(1, 10)
end

--- One number rule (internal/tokens.Short): 950, 3.3k, 34.5k, 152k, 1.6M, 11.7M.
function M.short(n)
  n = tonumber(n) or 0
  if n < 1000 then
    return tostring(n)
  end
  local units = { 'k', 'M', 'B', 'T' }
  local v = n
  for i, u in ipairs(units) do
    v = v / 1000
    if not (v >= 999.5 and i < #units) then
      if v < 99.95 then
        return string.format('%.1f%s', v, u)
      end
      return string.format('%.0f%s', v, u)
    end
  end
  return tostring(n)
end

local function resume_state(r)
  if type(r) ~= 'table' then
    return '·'
  end
  if r.complete then
    return '✓'
  end
  if r.brokenAt ~= nil and r.brokenAt ~= vim.NIL then
    return (tonumber(r.lost) or 0) > 0 and ('✗ loses ' .. r.lost) or '✗'
  end
  return '✓'
end

local function findings(f)
  if type(f) ~= 'table' then
    return ''
  end
  local n = (f.error or 0) + (f.warning or 0) + (f.information or 0) + (f.hint or 0)
  return n > 0 and (n .. ' findings') or ''
end

--- The line a session is shown as: project · title · when · tokens · cost · resume · findings ·
--- the day Claude Code deletes it.
function M.label(s)
  local t = s.tokens or {}
  local out = M.short(t.output)
  if (tonumber(t.unfinishedMessages) or 0) > 0 then
    out = '≥ ' .. out
  end
  local cost = ''
  if type(s.cost) == 'table' then
    if (s.cost.priced or 0) > 0 then
      cost = string.format('%s$%.2f', (s.cost.unpriced or 0) > 0 and '≥ ' or '', s.cost.usd or 0)
    elseif (s.cost.unpriced or 0) > 0 then
      cost = 'unpriced'
    end
  end
  local parts = {
    s.project or '?',
    (s.title ~= nil and s.title ~= '') and s.title or s.id,
    M.relative(s['end']),
    out .. ' out · ' .. M.short((t.input or 0) + (t.cacheCreation or 0) + (t.cacheRead or 0)) .. ' in',
  }
  if cost ~= '' then
    table.insert(parts, cost)
  end
  table.insert(parts, resume_state(s.resume))
  local f = findings(s.findings)
  if f ~= '' then
    table.insert(parts, f)
  end
  if type(s.deletes) == 'string' and s.deletes ~= '' then
    table.insert(parts, 'deleted ' .. s.deletes) -- by Claude Code's cleanupPeriodDays (docs/spec.md §11)
  end
  return table.concat(parts, ' · ')
end

--- The sessions, from a running server, else from the command line. Calls done(list, err).
function M.fetch(done)
  local client = ccdag().all_clients()[1]
  if client then
    ccdag().request(client, 'ccdag/sessions', vim.empty_dict(), function(err, result)
      if err then
        return done(nil, err.message or vim.inspect(err))
      end
      done(result and result.sessions or {})
    end)
    return
  end
  if not ccdag().available() then
    return done(nil, nil)
  end
  local bin = ccdag().binary()
  local out = vim.fn.system({ bin, 'sessions', '--format', 'json' })
  local ok, doc = pcall(vim.fn.json_decode, out)
  if not ok or type(doc) ~= 'table' then
    return done(nil, 'ccdag sessions gave no list: ' .. vim.trim(out):sub(1, 200))
  end
  for _, s in ipairs(doc.sessions or {}) do
    s.uri = s.uri or vim.uri_from_fname(vim.fn.fnamemodify(s.path, ':p'))
  end
  done(doc.sessions or {})
end

local function open(s)
  if not s then
    return
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(s.uri)))
end

--- :CcdagSessions
function M.sessions()
  M.fetch(function(list, err)
    vim.schedule(function()
      if not list then
        return vim.notify('ccdag: ' .. tostring(err), vim.log.levels.ERROR)
      end
      if #list == 0 then
        return vim.notify('ccdag: no sessions found', vim.log.levels.INFO)
      end
      M.last = list
      local has_telescope, pickers = pcall(require, 'telescope.pickers')
      if has_telescope and not vim.g.ccdag_no_telescope then
        local finders = require('telescope.finders')
        local conf = require('telescope.config').values
        local actions = require('telescope.actions')
        local state = require('telescope.actions.state')
        pickers
          .new({}, {
            prompt_title = 'Claude sessions',
            finder = finders.new_table({
              results = list,
              entry_maker = function(s)
                return { value = s, display = M.label(s), ordinal = M.label(s) }
              end,
            }),
            sorter = conf.generic_sorter({}),
            attach_mappings = function(bufnr)
              actions.select_default:replace(function()
                actions.close(bufnr)
                open(state.get_selected_entry().value)
              end)
              return true
            end,
          })
          :find()
        return
      end
      vim.ui.select(list, { prompt = 'Claude sessions', format_item = M.label }, open)
    end)
  end)
end

return M
