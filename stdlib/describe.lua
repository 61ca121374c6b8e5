-- describe: busted-style declarations of a regression suite (loaded by
-- `bglua test` in every state that reads a suite file; docs/suites.md).
--   describe(name, fn)            a block: its cases' names get name as prefix
--   it(name [, fields] [, fn])    a case; without fn it is pending (skipped)
--   pending(name [, fn])          a pending case
--   setup(fn), teardown(fn)       before and after each case of the block
--   before_each(fn), after_each(fn)
--   finally(fn)                   inside a case: run fn when it ends
-- Every case is a simulation of its own, so setup and teardown run once per
-- case, like before_each and after_each, setup first and teardown last.
-- The hooks of the enclosing blocks run outer first, the after hooks inner
-- first; finally, after_each and teardown run even when the case raised an
-- error, which is raised again once they have run.
local hook_names = "setup, teardown, before_each, after_each, finally"

return function(declared)
  local root = { setup = {}, teardown = {}, before_each = {}, after_each = {} }
  local stack = { root }
  local finals -- the finally functions of the case running, if one is

  local function check(what, v, want, level)
    if type(v) ~= want then
      error(string.format("%s: want a %s, got %s", what, want, type(v)), level + 1)
    end
  end

  local function hook(kind)
    return function(fn)
      check(kind, fn, "function", 2)
      local list = stack[#stack][kind]
      list[#list + 1] = fn
    end
  end

  -- run calls every hook of kind in blocks, in order (step 1) or reversed.
  local function run(blocks, kind, step)
    local first, last = 1, #blocks
    if step < 0 then first, last = last, first end
    for i = first, last, step do
      for _, fn in ipairs(blocks[i][kind]) do fn() end
    end
  end

  -- case makes the run function of a case: its body between the hooks of
  -- the blocks it is declared in.
  local function case(blocks, body)
    return function()
      finals = {}
      run(blocks, "setup", 1)
      run(blocks, "before_each", 1)
      local ok, err = pcall(body)
      local after = { function()
        for _, fn in ipairs(finals) do fn() end
      end, function() run(blocks, "after_each", -1) end, function() run(blocks, "teardown", -1) end }
      for _, fn in ipairs(after) do
        local ok2, err2 = pcall(fn)
        if ok and not ok2 then ok, err = ok2, err2 end
      end
      finals = nil
      if not ok then error(err, 0) end
    end
  end

  local function name_of(name)
    local parts = {}
    for i = 2, #stack do parts[#parts + 1] = stack[i].name end
    parts[#parts + 1] = name
    return table.concat(parts, " ")
  end

  local function declare(name, fields, body)
    local c = {}
    for k, v in pairs(fields or {}) do c[k] = v end
    c.name = name_of(name)
    if body then
      local blocks = {}
      for i, b in ipairs(stack) do blocks[i] = b end
      c.run = case(blocks, body)
    else
      c.pending = true
    end
    declared[#declared + 1] = c
  end

  local s = {}

  function s.describe(name, fn)
    check("describe: the name", name, "string", 2)
    check("describe: the block", fn, "function", 2)
    stack[#stack + 1] = { name = name, setup = {}, teardown = {}, before_each = {}, after_each = {} }
    fn()
    stack[#stack] = nil
  end

  function s.it(name, fields, fn)
    check("it: the name", name, "string", 2)
    if type(fields) == "function" then fields, fn = nil, fields end
    if fields ~= nil then check("it: the fields", fields, "table", 2) end
    if fn ~= nil then check("it: the case", fn, "function", 2) end
    declare(name, fields, fn)
  end

  function s.pending(name)
    check("pending: the name", name, "string", 2)
    declare(name, nil, nil)
  end

  function s.finally(fn)
    check("finally", fn, "function", 2)
    if not finals then error("finally: call it inside a case (it), to run when the case ends", 2) end
    finals[#finals + 1] = fn
  end

  for _, kind in ipairs({ "setup", "teardown", "before_each", "after_each" }) do
    s[kind] = hook(kind)
  end
  -- busted's other names for the same things: every case being a
  -- simulation of its own, lazy and strict setups are the same.
  s.context, s.spec, s.test = s.describe, s.it, s.it
  s.lazy_setup, s.strict_setup = s.setup, s.setup
  s.lazy_teardown, s.strict_teardown = s.teardown, s.teardown
  -- Names from busted and other frameworks that bglua does not have say
  -- so, and what to use instead, rather than "attempt to call a nil value".
  for name, instead in pairs({
    before_all = "setup", after_all = "teardown", beforeEach = "before_each", afterEach = "after_each",
    beforeAll = "setup", afterAll = "teardown", insulate = "describe (every case is its own simulation)",
    expose = "describe (every case is its own simulation)", spy = "no spies: check values with expect",
    stub = "no stubs: check values with expect", mock = "no mocks: check values with expect",
    randomize = "bglua test --shuffle",
  }) do
    s[name] = function()
      error(string.format("%s is not a bglua suite function (hooks: %s); use %s", name, hook_names, instead), 2)
    end
  end
  return s
end
