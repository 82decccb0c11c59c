-- rebalance.lua: spread topics' replicas and leaders evenly over the brokers, paced.
--
-- Usage:    kadmin-lua run scripts/rebalance.lua TOPIC... [--by count|bytes] [--broker ID]... [--max-moves-per-broker N] [--max-moves N] [--throttle BYTES] [--resume]
-- Arguments:
--   TOPIC...                   the topics to balance
--   --by count|bytes           balance replica counts (default), or disk usage too: each broker's
--                              used bytes over its log dirs' capacity (plan_reassignment by = "bytes")
--   --broker ID                spread over these brokers only (repeat it; default: every broker)
--   --max-moves-per-broker N   moves in flight a broker takes part in, joining or leaving (default 5)
--   --max-moves N              partitions moving in the cluster at once, any run's (default 1000)
--   --throttle BYTES           replication throttle per broker while data moves, bytes per second
--                              (52428800, 50MiB, 50MB), lifted when the last move ends
--   --resume                   first finish the run Ctrl-C, kill -9 or a lost connection interrupted
--                              (from the --audit-log it was written to), then balance what is left
-- The plan keeps every replica that can stay and moves the fewest (rack rules kept); a plan that
-- would not narrow the spread moves nothing and says so. The moves go through reassign, paced
-- under the caps, written ahead to --audit-log: `kadmin-lua undo` puts back what a run moved. With
-- --dry-run (before `run`) nothing changes: the plan, its batches and the bytes are printed.
-- Returns a row per broker: broker, replicas_before, replicas_after, leaders_before, leaders_after
-- (and bytes_before, bytes_after with --by bytes), as planned.
-- Exit codes: 0 balanced (or nothing to do; with --dry-run, planned); 1 bad arguments; 3 Kafka error
--   (an unknown topic, a move refused or failed: the message names the partition); 130 interrupted
--   (moves in flight go on unless cancelled; --resume finishes the run).
-- Example:
--   kadmin-lua --dry-run run scripts/rebalance.lua orders payments
--   kadmin-lua --audit-log audit.jsonl run scripts/rebalance.lua orders --by bytes --max-moves-per-broker 2 --throttle 50MiB
--   kadmin-lua --audit-log audit.jsonl run scripts/rebalance.lua orders --broker 1 --broker 2 --broker 3
local args = require("lib.args")
local moving = require("lib.moving")

local a = args.parse{usage = "rebalance.lua TOPIC... [--by count|bytes] [--broker ID]... " .. moving.usage, min = 1,
  flags = moving.flags{by = "string", broker = "list"}}
if not a then return end
local o = moving.options(a)
local by = a.flags.by
if by and by ~= "count" and by ~= "bytes" then args.usage_error(string.format("--by must be count or bytes, got %q", by)) end
local topics = {}
for i = 1, #a do
  if a[i] == "" then args.usage_error("TOPIC must not be empty") end
  topics[i] = a[i]
end
local brokers
for _, b in ipairs(a.flags.broker or {}) do
  brokers = brokers or {}
  brokers[#brokers + 1] = args.integer(b, "--broker", 0)
end

moving.finish_interrupted(o)
local plan = plan_reassignment{topics = topics, by = by, brokers = brokers}
for _, note in ipairs(plan.notes or {}) do kafka.log.warn(note) end
local cols = {"broker", "replicas_before", "replicas_after", "leaders_before", "leaders_after", "bytes_before", "bytes_after"}
local rows = {}
for _, b in ipairs(plan.brokers or {}) do
  rows[#rows + 1] = args.record(cols, {broker = b.broker, replicas_before = b.replicas_before, replicas_after = b.replicas_after,
    leaders_before = b.leaders_before, leaders_after = b.leaders_after, bytes_before = b.bytes_before, bytes_after = b.bytes_after})
end
if #plan.partitions == 0 then
  args.say("%s: already balanced: nothing to move", table.concat(topics, ", "))
  return rows
end
args.say("plan: %d replica(s) move, %d preferred leader(s) change, over %d partition(s)", plan.moves, plan.leader_changes, #plan.partitions)
moving.run("rebalance", plan.partitions, o)
return rows
