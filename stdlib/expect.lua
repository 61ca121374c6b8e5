-- expect: the matchers of bglua regression suites (loaded by `bglua test`).
--   expect(x).to_equal(v)            deep equality for tables
--   expect(x).to_be_near(v [, rel])  |x - v| <= rel * |v| (rel defaults to 1e-9)
--   expect(x).to_be_below(v), expect(x).to_be_above(v), expect(x).to_be_truthy()
--   expect(fn).to_fail_with(pattern) fn() raises an error matching the Lua pattern
-- A failed expectation raises an error at the caller's line, which ends the
-- case with the rank, file:line, and the expected and actual values.
local function show(v, depth)
  depth = depth or 0
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) ~= "table" or depth > 2 then return tostring(v) end
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = show(v[i], depth + 1) end
  local keys = {}
  for k in pairs(v) do
    if not (type(k) == "number" and k >= 1 and k <= n and k % 1 == 0) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. show(v[k], depth + 1) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local function equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function fail(fmt, ...)
  -- Blame the line that called the matcher: fail is 1, the matcher 2.
  error(string.format(fmt, ...), 3)
end

return function(actual)
  local m = {}
  function m.to_equal(want)
    if not equal(actual, want) then fail("expected %s, got %s", show(want), show(actual)) end
  end
  function m.to_be_near(want, rel)
    rel = rel or 1e-9
    if type(actual) ~= "number" or math.abs(actual - want) > rel * math.abs(want) then
      fail("expected %s within %g (relative), got %s", show(want), rel, show(actual))
    end
  end
  function m.to_be_below(limit)
    if type(actual) ~= "number" or not (actual < limit) then fail("expected a value below %s, got %s", show(limit), show(actual)) end
  end
  function m.to_be_above(limit)
    if type(actual) ~= "number" or not (actual > limit) then fail("expected a value above %s, got %s", show(limit), show(actual)) end
  end
  function m.to_be_truthy()
    if not actual then fail("expected a true value, got %s", show(actual)) end
  end
  function m.to_fail_with(pattern)
    if type(actual) ~= "function" then fail("to_fail_with needs a function, got %s", show(actual)) end
    local ok, err = pcall(actual)
    if ok then fail("expected an error matching %s, but the function returned", show(pattern)) end
    if not string.find(tostring(err), pattern) then
      fail("expected an error matching %s, got %s", show(pattern), show(tostring(err)))
    end
  end
  return m
end
