-- ccdag: the transcript's Markdown (ccdag/transcript) as text a person reads in a buffer: no
-- backslash escapes, no link targets, no ** or backticks, <details> as a marker, fences blank, in a
-- sub-agent's quoted lines too. Line for line: the server's map from transcript lines to log lines
-- stays true.
local M = {}

-- ASCII punctuation, what CommonMark lets a backslash escape. '[' stays bare: in a set '%[-`' is
-- '[', '-' and '`', not a range, and \ ] ^ _ stayed escaped.
local punct = '[!-/:-@[-`{-~]'

--- One line of Markdown outside a code fence, as text.
function M.line(s)
  s = s:gsub('^%s*<details><summary>(.-)</summary>%s*$', '▸ %1')
  if s:match('^%s*</details>%s*$') then
    return ''
  end
  -- links: the text stays, the target goes ([L6](<file:///…#L6>) reads [L6])
  s = s:gsub('(%b[])%(<[^>]*>%)', '%1'):gsub('(%b[])%([^%s%)]*%)', '%1')
  local out, i, n = {}, 1, #s
  while i <= n do
    local c = s:sub(i, i)
    if c == '\\' and i < n and s:sub(i + 1, i + 1):match(punct) then
      table.insert(out, s:sub(i + 1, i + 1))
      i = i + 2
    elseif c == '\\' and i == n then
      i = i + 1 -- a hard line break
    elseif c == '`' then
      local run = s:match('^`+', i)
      local close = s:find(run, i + #run, true)
      if close then
        table.insert(out, s:sub(i + #run, close - 1))
        i = close + #run
      else
        table.insert(out, run)
        i = i + #run
      end
    elseif s:sub(i, i + 1) == '**' then
      i = i + 2
    else
      table.insert(out, c)
      i = i + 1
    end
  end
  return table.concat(out)
end

-- A line's container: the indentation and quote markers ('  > > ') the transcript puts before a
-- sub-agent's lines and a result's preview. What follows is read as a line of its own, so a quoted
-- <details> or fence reads as one outside a quote does.
local function container(l)
  local p = l:match('^[ >]*')
  return p, l:sub(#p + 1)
end

--- The transcript's Markdown lines as text, as many lines as given.
function M.lines(md)
  local out, fence = {}, nil
  for _, l in ipairs(md) do
    local p, rest = container(l)
    if fence then
      local f = rest:match('^(```+)%s*$')
      if f and #f >= #fence then
        fence = nil
        table.insert(out, (p:gsub('%s+$', '')))
      else
        table.insert(out, l)
      end
    else
      -- an opening fence: a run of backticks and an info string without one
      local f = rest:match('^(```+)[^`]*$')
      if f then
        fence = f
        table.insert(out, (p:gsub('%s+$', '')))
      else
        local t = M.line(rest)
        if t == '' and rest ~= '' then
          p = p:gsub('%s+$', '') -- a line dropped whole (</details>): no trailing blanks
        end
        table.insert(out, p .. t)
      end
    end
  end
  return out
end

return M
