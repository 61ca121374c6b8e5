-- expect: the matchers of bglua regression suites (loaded by `bglua test`).
--   expect(x).to_equal(v)            deep equality for tables
--   expect(x).to_be_near(v [, rel])  |x - v| <= rel * |v| (rel defaults to 1e-9)
--   expect(x).to_be_below(v), expect(x).to_be_above(v), expect(x).to_be_truthy()
--   expect(x).to_be_nil(), expect(x).to_be_a(type)   type as type() names it
--   expect(x).to_contain(v)          a string holding v, or a table with a value equal to v
--   expect(x).to_match(pattern)      a string matching the Lua pattern
--   expect(fn).to_fail_with(pattern) fn() raises an error matching the Lua pattern
-- Every matcher has a negation, not_to_...: expect(x).not_to_equal(v).
-- A failed expectation raises an error at the caller's line, "expected
-- ..., got ...", which ends the case with the rank, file:line, and the
-- expected and actual values.
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

-- Each matcher says whether actual passes, what was expected (after
-- "expected "), and, if not actual itself, what was got.
local matchers = {}

function matchers.to_equal(actual, want)
  return equal(actual, want), show(want)
end

function matchers.to_be_near(actual, want, rel)
  rel = rel or 1e-9
  return type(actual) == "number" and math.abs(actual - want) <= rel * math.abs(want),
    string.format("%s within %g (relative)", show(want), rel)
end

function matchers.to_be_below(actual, limit)
  return type(actual) == "number" and actual < limit, "a value below " .. show(limit)
end

function matchers.to_be_above(actual, limit)
  return type(actual) == "number" and actual > limit, "a value above " .. show(limit)
end

function matchers.to_be_truthy(actual)
  return not not actual, "a true value"
end

function matchers.to_be_nil(actual)
  return actual == nil, "nil"
end

function matchers.to_be_a(actual, t)
  if type(t) ~= "string" then error("to_be_a needs a type name such as \"table\", got " .. show(t), 3) end
  return type(actual) == t, "a " .. t, string.format("%s (a %s)", show(actual), type(actual))
end

function matchers.to_contain(actual, v)
  if type(actual) == "string" then
    return type(v) == "string" and string.find(actual, v, 1, true) ~= nil, "a string containing " .. show(v)
  end
  if type(actual) ~= "table" then return false, "a table or string containing " .. show(v) end
  for _, x in pairs(actual) do
    if equal(x, v) then return true, "a table containing " .. show(v) end
  end
  return false, "a table containing " .. show(v)
end

function matchers.to_match(actual, pattern)
  return type(actual) == "string" and string.find(actual, pattern) ~= nil, "a string matching " .. show(pattern)
end

function matchers.to_fail_with(actual, pattern)
  if type(actual) ~= "function" then error("to_fail_with needs a function, got " .. show(actual), 3) end
  local ok, err = pcall(actual)
  if ok then return false, "an error matching " .. show(pattern), "no error: the function returned" end
  return string.find(tostring(err), pattern) ~= nil, "an error matching " .. show(pattern), show(tostring(err))
end

local names = {}
for name in pairs(matchers) do names[#names + 1] = name end
table.sort(names)
local known = table.concat(names, ", ")

-- A matcher is looked up when used: expect(x) makes no closures it does
-- not need. An unknown name says which exist.
local function lookup(self, name)
  local negated = type(name) == "string" and string.sub(name, 1, 4) == "not_"
  local match = matchers[negated and string.sub(name, 5) or name]
  if not match then
    error(string.format("expect: no matcher %s (matchers: %s, each also as not_...)", tostring(name), known), 2)
  end
  local actual = rawget(self, 1)
  return function(...)
    local ok, want, got = match(actual, ...)
    if ok == negated then
      error(string.format("expected %s%s, got %s", negated and "not " or "", want, got or show(actual)), 2)
    end
  end
end

local meta = { __index = lookup }

return function(actual)
  return setmetatable({ actual }, meta)
end
