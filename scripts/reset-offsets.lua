-- reset-offsets.lua: move a stopped consumer group's committed offsets.
--
-- Usage:    kadmin-lua run scripts/reset-offsets.lua GROUP TO [TOPIC[:PARTITION]...] [--force]
-- Arguments:
--   GROUP    the consumer group (its consumers must be stopped)
--   TO       earliest | latest | current
--            | 2026-11-30T10:00:00Z       (an RFC 3339 time, zone required)
--            | duration:-1h | duration:PT1H  (that long ago)
--            | shift:-100 | shift:+100    (from the committed offset)
--            | offset:N | timestamp:MS | group:OTHER | file:offsets.csv
--   TOPIC    limit the reset to these topics (orders) or partitions (orders:3);
--            none means every partition the group has committed to
--   --force  remove members that are gone but not yet expired first (crashed
--            consumers, static members); never use it with consumers running
-- Prints the plan (current -> target per partition) and applies it: scripts never
-- ask. With --dry-run (before `run`) it prints the plan and commits nothing; run
-- that first. The whole plan is worked out before anything is committed: a
-- partition with no target (shift with no commit, missing from file:) commits
-- nothing. Targets are clamped to the partition's [earliest, latest].
-- Exit codes: 0 reset (or planned); 1 bad arguments; 3 Kafka error (e.g.
--   NON_EMPTY_GROUP: the group still has live members).
-- Example:
--   kadmin-lua --dry-run run scripts/reset-offsets.lua billing duration:-30m payments
--   kadmin-lua --audit-log reset.jsonl run scripts/reset-offsets.lua billing 2026-11-30T10:00:00Z
local args = require("lib.args")

local usage = "reset-offsets.lua GROUP TO [TOPIC[:PARTITION]...] [--force]"
local a = args.parse{usage = usage, min = 2, flags = {force = "boolean"}}
if not a then return end
local group, spec = a[1], a[2]
if group == "" then args.usage_error("GROUP must not be empty") end

local function integer(s, what)
  local n = tonumber(s)
  if not n or n ~= math.floor(n) or math.abs(n) >= 2^53 then
    args.usage_error(string.format("%s must be an integer, got %q", what, s))
  end
  return n
end

-- parse_to turns TO into reset_offsets' `to`.
local function parse_to(s)
  if s == "earliest" or s == "latest" or s == "current" then return s end
  if s:match("^%d%d%d%d%-%d%d%-%d%dT") then return {datetime = s} end
  local kind, v = s:match("^(%a+):(.+)$")
  if kind == "shift" then return {shift = integer(v, "shift")}
  elseif kind == "offset" then return {offset = args.integer(v, "offset", 0)}
  elseif kind == "timestamp" then return {timestamp = args.integer(v, "timestamp", 0)}
  elseif kind == "duration" then return {duration = v}
  elseif kind == "datetime" then return {datetime = v}
  elseif kind == "group" then return {group = v}
  elseif kind == "file" then return {file = v}
  end
  args.usage_error(string.format("TO must be earliest, latest, current, an RFC 3339 time, duration:D, shift:N, "
    .. "offset:N, timestamp:MS, group:NAME or file:PATH, got %q", s))
end
local to = parse_to(spec)

local topics = {}
for i = 3, #a do
  local t, p = a[i]:match("^(.+):(%d+)$")
  if t then
    topics[#topics + 1] = {topic = t, partition = tonumber(p)}
  elseif a[i] == "" or a[i]:find(":", 1, true) then
    args.usage_error(string.format("TOPIC must be a topic name or TOPIC:PARTITION, got %q", a[i]))
  else
    topics[#topics + 1] = a[i]
  end
end

local req = {group = group, to = to, force = a.flags.force or nil}
if #topics > 0 then req.topics = topics end
local rows = reset_offsets(req)

local moved, back, ahead = 0, 0, 0
for _, r in ipairs(rows) do
  if r.current ~= r.target then moved = moved + 1 end
  if r.current >= 0 and r.target >= 0 then
    if r.target < r.current then back = back + (r.current - r.target) else ahead = ahead + (r.target - r.current) end
  end
end
args.say("%s: %s %d partition%s to %s: %d moved, %d records rewound, %d skipped",
  group, args.dry_run() and "would reset" or "reset", #rows, #rows == 1 and "" or "s", spec, moved, back, ahead)
return rows
