-- __NAME__.lua: TODO say in one line what this runbook does (runbooks lists it).
--
-- Usage:    kadmin-lua run __NAME__.lua TOPIC [--partitions N]
-- Arguments:
--   TOPIC           the topic to work on
--   --partitions N  the partition count TOPIC must have at least (default 1)
-- Reads first and changes only what differs: a second run has nothing to do.
-- With --dry-run (before `run`) Kafka validates the change, the change is
-- announced on stderr, and nothing changes.
-- Prints one summary line to stderr and returns {topic, before, after, changed}.
-- Exit codes: 0 done or nothing to do; 1 bad arguments (nothing changed);
--   3 Kafka error (e.g. the topic does not exist).
-- Example:
--   kadmin-lua --dry-run run __NAME__.lua orders --partitions 12
--   kadmin-lua run __NAME__.lua orders --partitions 12
-- Tests: kadmin-lua test __NAME___test.lua (docs/authoring.md)
local args = require("lib.args")

local a = args.parse{usage = "__NAME__.lua TOPIC [--partitions N]", min = 1, max = 1,
                     flags = {partitions = "integer"}}
if not a then return end -- --help was asked for, and printed
local topic = a[1]
local want = a.flags.partitions or 1
if want < 1 then args.usage_error("--partitions must be at least 1") end

-- Read the state first: it decides what to do, in a dry run too.
local before = #describe_topics(topic)[1].partitions
local columns = {"topic", "before", "after", "changed", "dry_run"}
if before >= want then
  args.say("%s has %d partitions: nothing to do", topic, before)
  return {args.record(columns, {topic = topic, before = before, after = before, changed = false,
    dry_run = args.dry_run()})}
end

-- The change. Under --dry-run Kafka validates it and nothing changes; with
-- --audit-log it is written ahead, and kadmin-lua undo knows how to revert it.
create_partitions{[topic] = want}
args.say("%s: %d -> %d partitions", topic, before, want)
return {args.record(columns, {topic = topic, before = before, after = want, changed = true,
  dry_run = args.dry_run()})}
