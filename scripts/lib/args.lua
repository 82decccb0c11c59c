-- lib/args.lua: what every runbook in scripts/ shares.
--
--   local args = require("lib.args")
--   local a = args.parse{usage = "add-partitions.lua TOPIC COUNT", min = 2, max = 2,
--                        flags = {max = "integer", force = "boolean", topic = "list"}}
--   if not a then return end   -- --help was asked for and printed
--   a[1], a[2] ...             -- positional arguments (strings)
--   a.flags.max                -- flag values, converted; nil when not given
--
-- Flags are --name VALUE, --name=VALUE, or --name alone for booleans; "list"
-- flags may repeat. "--" ends the flags. -h/--help prints the script's header
-- comment. Every mistake ends the script with kafka.fail (exit 1) before it
-- has changed anything:
--   kadmin-lua: COUNT must be a positive integer, got "x" (usage: add-partitions.lua TOPIC COUNT)
local M = {}

local usage_line = "" -- set by parse, used by M.usage_error

-- usage_error stops the script (exit 1) with msg and the usage line.
function M.usage_error(msg)
  if usage_line ~= "" then
    kafka.fail(string.format("%s (usage: %s)", msg, usage_line))
  end
  kafka.fail(msg)
end

-- header returns the comment block at the top of a script, without "-- ".
local function header(path)
  local f = path and io.open(path, "r")
  if not f then return nil end
  local lines = {}
  for line in f:lines() do
    if line:sub(1, 2) == "#!" and #lines == 0 then
      -- skip a shebang
    elseif line:sub(1, 2) == "--" then
      lines[#lines + 1] = (line:gsub("^%-%-+ ?", ""))
    else
      break
    end
  end
  f:close()
  return table.concat(lines, "\n")
end
M.header = header

local converters = {
  string = function(v) return v end,
  integer = function(v, name) return M.integer(v, name) end,
  number = function(v, name)
    local n = tonumber(v)
    if not n then M.usage_error(string.format("%s must be a number, got %q", name, v)) end
    return n
  end,
}

-- parse reads arg[1..] (or spec.argv) against spec and returns the
-- positional arguments with a .flags table, or nil after printing --help.
function M.parse(spec)
  usage_line = spec.usage or ""
  local argv = spec.argv or arg or {}
  local flags_spec = spec.flags or {}
  local out, flags = {}, {}
  local i, n = 1, #argv
  local only_positional = false
  while i <= n do
    local a = argv[i]
    if only_positional or a == "-" or a:sub(1, 1) ~= "-" or tonumber(a) then
      out[#out + 1] = a
    elseif a == "--" then
      only_positional = true
    elseif a == "-h" or a == "--help" then
      print(header(argv[0] or arg and arg[0]) or ("usage: " .. usage_line))
      return nil
    else
      local name, value = a:match("^%-%-([%w%-_]+)=(.*)$")
      if not name then name = a:match("^%-%-([%w%-_]+)$") end
      local kind = name and flags_spec[name]
      if not kind then M.usage_error(string.format("unknown flag %s", a)) end
      if kind == "boolean" then
        if value ~= nil then
          if value == "true" then flags[name] = true
          elseif value == "false" then flags[name] = false
          else M.usage_error(string.format("--%s takes no value, got %q", name, value)) end
        else
          flags[name] = true
        end
      else
        if value == nil then
          i = i + 1
          value = argv[i]
          if value == nil then M.usage_error(string.format("--%s needs a value", name)) end
        end
        if kind == "list" then
          flags[name] = flags[name] or {}
          table.insert(flags[name], value)
        else
          flags[name] = converters[kind](value, "--" .. name)
        end
      end
    end
    i = i + 1
  end
  if #out < (spec.min or 0) then
    M.usage_error(string.format("expected %s argument%s, got %d", spec.max == spec.min and tostring(spec.min)
      or ("at least " .. spec.min), spec.min == 1 and "" or "s", #out))
  end
  if spec.max == 0 and #out > 0 then
    M.usage_error(string.format("takes no arguments, got %d (%s)", #out, table.concat(out, " ")))
  end
  if spec.max and #out > spec.max then
    M.usage_error(string.format("expected at most %d argument%s, got %d (%s)", spec.max, spec.max == 1 and "" or "s",
      #out, table.concat(out, " ")))
  end
  for _, name in ipairs(spec.required or {}) do
    if flags[name] == nil then M.usage_error(string.format("--%s is required", name)) end
  end
  out.flags = flags
  return out
end

-- integer converts s to an integer >= (min or 0), or stops with a usage
-- error naming what.
function M.integer(s, what, min)
  min = min or 0
  local n = tonumber(s)
  if not n or n ~= math.floor(n) or n < min or n >= 2^53 then
    local kind = min == 1 and "a positive integer" or (min == 0 and "a non-negative integer"
      or ("an integer >= " .. min))
    M.usage_error(string.format("%s must be %s, got %q", what, kind, tostring(s)))
  end
  return n
end

-- record makes t print with its columns in the given order (table output);
-- JSON output is unaffected.
function M.record(columns, t)
  return setmetatable(t, {__columns = columns})
end

-- say writes one human summary line to stderr (stdout stays the returned
-- result, so -o json remains machine-readable).
function M.say(fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  if kafka.dry_run() then msg = "dry-run: " .. msg end
  kafka.log.info(msg)
end

-- dry_run reports whether this run changes nothing (--dry-run).
function M.dry_run() return kafka.dry_run() end

return M
