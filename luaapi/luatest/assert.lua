-- The assertions of `kadmin-lua test`, named after busted's (luassert):
-- assert.same (tables by content, with a diff), assert.equal (==),
-- assert.is_true, is_false, is_nil, is_not_nil, truthy, falsy, matches,
-- has_error, contains; assert.are.same and assert.is.* spell the same
-- functions. assert(v, msg) stays Lua's own. expect(got) reads the other way
-- round: expect(got):equals(want), :is(want), :matches(pattern),
-- :contains(v), :has_length(n), :fails(pattern), and expect(got).never
-- negates the next check. A failed check raises an error at the caller's
-- line that says what was expected and what came.
local raise = ... -- raises a message at the first line outside this file (Go)
local lua_assert = assert

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta == "number" end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return keys
end

local function is_array(t)
  local n = #t
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

-- show renders v as a Lua literal, cut at about max characters.
local function show(v, max)
  max = max or 400
  local out, len = {}, 0
  local seen = {}
  local function put(s)
    if len < max then out[#out + 1] = s end
    len = len + #s
  end
  local function walk(x, depth)
    local t = type(x)
    if t == "string" then
      put(string.format("%q", x))
    elseif t ~= "table" then
      put(tostring(x))
    elseif getmetatable(x) and getmetatable(x).__tostring then
      put(tostring(x))
    elseif seen[x] or depth > 8 then
      put("{...}")
    else
      seen[x] = true
      put("{")
      local first = true
      if is_array(x) then
        for _, e in ipairs(x) do
          if not first then put(", ") end
          first = false
          walk(e, depth + 1)
        end
      else
        for _, k in ipairs(sorted_keys(x)) do
          if not first then put(", ") end
          first = false
          if type(k) == "string" and k:match("^[%a_][%w_]*$") then put(k) else put("["); walk(k, depth + 1); put("]") end
          put(" = ")
          walk(x[k], depth + 1)
        end
      end
      put("}")
      seen[x] = nil
    end
  end
  walk(v, 0)
  local s = table.concat(out)
  if len > max then s = s:sub(1, max) .. "..." end
  return s
end

local function key_path(path, k)
  if type(k) == "number" then return path .. "[" .. k .. "]" end
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then
    return path == "" and k or (path .. "." .. k)
  end
  return path .. "[" .. show(k) .. "]"
end

-- diff lists where want and got differ, at most limit places.
local function diff(want, got, path, out, limit)
  if #out >= limit then return end
  local where = path == "" and "value" or path
  if type(want) ~= "table" or type(got) ~= "table" then
    if want ~= got then
      out[#out + 1] = string.format("%s: expected %s, got %s", where, show(want, 120), show(got, 120))
    end
    return
  end
  if want == got then return end
  local keys, done = {}, {}
  for _, k in ipairs(sorted_keys(want)) do keys[#keys + 1] = k; done[k] = true end
  for _, k in ipairs(sorted_keys(got)) do if not done[k] then keys[#keys + 1] = k end end
  for _, k in ipairs(keys) do
    local p = key_path(path, k)
    if got[k] == nil then
      out[#out + 1] = string.format("%s: missing, expected %s", p, show(want[k], 120))
    elseif want[k] == nil then
      out[#out + 1] = string.format("%s: not expected, got %s", p, show(got[k], 120))
    else
      diff(want[k], got[k], p, out, limit)
    end
    if #out >= limit then
      out[#out + 1] = "(more differences left out)"
      return
    end
  end
end

local function same(want, got)
  local out = {}
  diff(want, got, "", out, 1)
  return #out == 0
end

-- fail raises msg at the line of the test that called the check.
local function fail(msg)
  raise(msg)
end

local M = {}

function M.same(want, got, msg)
  local out = {}
  diff(want, got, "", out, 12)
  if #out > 0 then
    local lines = {(msg and (msg .. ": ") or "") .. "expected the same values, they differ at:"}
    for _, l in ipairs(out) do lines[#lines + 1] = "  " .. l end
    lines[#lines + 1] = "expected: " .. show(want)
    lines[#lines + 1] = "got:      " .. show(got)
    fail(table.concat(lines, "\n"))
  end
end

function M.equal(want, got, msg)
  if want ~= got then
    fail(string.format("%sexpected %s, got %s", msg and (msg .. ": ") or "", show(want), show(got)))
  end
end

local function checker(test, what)
  return function(v, msg)
    if not test(v) then
      fail(string.format("%sexpected %s, got %s", msg and (msg .. ": ") or "", what, show(v)))
    end
  end
end
M.is_true = checker(function(v) return v == true end, "true")
M.is_false = checker(function(v) return v == false end, "false")
M.is_nil = checker(function(v) return v == nil end, "nil")
M.is_not_nil = checker(function(v) return v ~= nil end, "a value")
M.truthy = checker(function(v) return v ~= nil and v ~= false end, "a truthy value")
M.falsy = checker(function(v) return v == nil or v == false end, "nil or false")

function M.matches(pattern, s, msg)
  if type(s) ~= "string" or not s:find(pattern) then
    fail(string.format("%sexpected a string matching %q, got %s", msg and (msg .. ": ") or "", pattern, show(s)))
  end
end

local function contains(list, v)
  if type(list) == "string" then return type(v) == "string" and list:find(v, 1, true) ~= nil end
  if type(list) ~= "table" then return false end
  for _, e in pairs(list) do
    if same(v, e) then return true end
  end
  return false
end

function M.contains(list, v, msg)
  if not contains(list, v) then
    fail(string.format("%sexpected %s to contain %s", msg and (msg .. ": ") or "", show(list), show(v)))
  end
end

local function raised(fn, pattern)
  if type(fn) ~= "function" then fail("expected a function to call, got " .. show(fn)) end
  local ok, err = pcall(fn)
  if ok then fail("expected an error, the call succeeded") end
  if pattern and not tostring(err):find(pattern) then
    fail(string.format("expected an error matching %q, got %s", pattern, show(tostring(err))))
  end
  return err
end

function M.has_error(fn, pattern)
  return raised(fn, pattern)
end

M.are, M.is = M, M

setmetatable(M, {__call = function(_, v, ...)
  if v == nil or v == false then
    local msg = ...
    if type(msg) == "table" then error(msg, 0) end -- an error value is raised as it is, as Lua's assert does
    fail(msg == nil and "assertion failed!" or tostring(msg))
  end
  return v, ...
end})

-- expect(got): the checks read got first.
local Expect = {}
Expect.__index = function(e, k)
  if k == "never" then
    return setmetatable({got = rawget(e, "got"), negated = not rawget(e, "negated")}, Expect)
  end
  return Expect[k]
end

local function check(e, ok, expected)
  if e.negated then ok = not ok end
  if not ok then
    fail(string.format("expected %s%s, got %s", e.negated and "not " or "", expected, show(e.got)))
  end
end

function Expect.equals(e, want)
  if e.negated then
    check(e, same(want, e.got), show(want))
    return
  end
  local out = {}
  diff(want, e.got, "", out, 12)
  if #out > 0 then
    local lines = {"expected the same values, they differ at:"}
    for _, l in ipairs(out) do lines[#lines + 1] = "  " .. l end
    lines[#lines + 1] = "expected: " .. show(want)
    lines[#lines + 1] = "got:      " .. show(e.got)
    fail(table.concat(lines, "\n"))
  end
end
Expect.same = Expect.equals
function Expect.is(e, want) check(e, e.got == want, show(want)) end
function Expect.is_true(e) check(e, e.got == true, "true") end
function Expect.is_false(e) check(e, e.got == false, "false") end
function Expect.is_nil(e) check(e, e.got == nil, "nil") end
function Expect.is_not_nil(e) check(e, e.got ~= nil, "a value") end
function Expect.truthy(e) check(e, e.got ~= nil and e.got ~= false, "a truthy value") end
function Expect.falsy(e) check(e, e.got == nil or e.got == false, "nil or false") end
function Expect.matches(e, pattern)
  check(e, type(e.got) == "string" and e.got:find(pattern) ~= nil, string.format("a string matching %q", pattern))
end
function Expect.contains(e, v) check(e, contains(e.got, v), "a value containing " .. show(v)) end
function Expect.has_length(e, n)
  local len = (type(e.got) == "table" or type(e.got) == "string") and #e.got or nil
  if (len == n) == (e.negated == true) then
    fail(string.format("expected %slength %d, got %s (%s)", e.negated and "not " or "", n, tostring(len), show(e.got, 120)))
  end
end
function Expect.fails(e, pattern)
  return raised(e.got, pattern)
end

local function expect(got)
  return setmetatable({got = got}, Expect)
end

return {assert = M, expect = expect, expectation = Expect, show = show, lua_assert = lua_assert}
