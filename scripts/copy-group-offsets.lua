-- copy-group-offsets.lua: give a group another group's committed offsets.
--
-- Usage:    kadmin-lua run scripts/copy-group-offsets.lua FROM TO [TOPIC...] [--force]
-- Arguments:
--   FROM     the group whose committed offsets are copied (it is only read)
--   TO       the group that gets them (created if it does not exist; its
--            consumers must be stopped)
--   TOPIC    copy only these topics' offsets; none means all FROM has committed
--   --force  remove TO's members that are gone but not yet expired first
-- Use it to start a new consumer group (a blue/green deploy, a replay copy) where
-- an existing one is, or to move a group to a new name. TO's commits on other
-- topics are kept. With --dry-run (before `run`) it prints the plan only.
-- Exit codes: 0 copied (or planned); 1 bad arguments, or FROM has nothing
--   committed (nothing changed); 3 Kafka error (e.g. NON_EMPTY_GROUP for TO).
-- Example:
--   kadmin-lua --dry-run run scripts/copy-group-offsets.lua billing billing-v2
--   kadmin-lua run scripts/copy-group-offsets.lua billing billing-v2 payments
local args = require("lib.args")

local a = args.parse{usage = "copy-group-offsets.lua FROM TO [TOPIC...] [--force]", min = 2,
  flags = {force = "boolean"}}
if not a then return end
local from, to = a[1], a[2]
if from == "" or to == "" then args.usage_error("FROM and TO must not be empty") end
if from == to then args.usage_error(string.format("FROM and TO are the same group (%s)", from)) end
local topics = {}
for i = 3, #a do
  if a[i] == "" then args.usage_error("TOPIC must not be empty") end
  topics[#topics + 1] = a[i]
end

local committed = fetch_offsets(from)
local have = {}
for _, o in ipairs(committed) do have[o.topic] = true end
if #committed == 0 then
  kafka.fail(string.format("%s has no committed offsets (does it exist?); nothing changed", from))
end
for _, t in ipairs(topics) do
  if not have[t] then kafka.fail(string.format("%s has no committed offsets on %s; nothing changed", from, t)) end
end

local rows = reset_offsets{group = to, to = {group = from}, topics = #topics > 0 and topics or nil,
  force = a.flags.force or nil}
args.say("%s: %s %d partition offset%s from %s", to, args.dry_run() and "would copy" or "copied",
  #rows, #rows == 1 and "" or "s", from)
return rows
