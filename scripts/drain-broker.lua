-- drain-broker.lua: empty brokers for decommission, paced: leadership first, then replicas.
--
-- Usage:    kadmin-lua run scripts/drain-broker.lua BROKER... [--max-moves-per-broker N] [--max-moves N] [--throttle BYTES] [--resume] [--demote-only] [--unregister]
-- Arguments:
--   BROKER...                  the ids of the brokers to empty
--   --max-moves-per-broker N   moves in flight a broker takes part in, joining or leaving (default 5)
--   --max-moves N              partitions moving in the cluster at once, any run's (default 1000)
--   --throttle BYTES           replication throttle per broker while data moves, bytes per second
--                              (52428800, 50MiB, 50MB), lifted when the last move ends
--   --resume                   first finish the run Ctrl-C, kill -9 or a lost connection interrupted
--                              (from the --audit-log it was written to), then drain what is left
--   --demote-only              move leadership only, no data: for an incident (the brokers keep
--                              their replicas, and lead nothing once Kafka elects the new leaders)
--   --unregister               once the brokers are empty and shut down, unregister them
--                              (unregister_broker); a broker still running is refused, exit 1
-- Step 1 moves leadership off: the partitions the brokers lead get them last in their replica
-- lists and their preferred leaders elected (no data moves). Step 2 moves their replicas to the
-- least loaded brokers left, rack rules kept (plan_reassignment{drain = ...}), paced by reassign
-- under the caps. Then the brokers' replicas and leaders are counted again: the run says they are
-- empty, or fails. Every step is written ahead to --audit-log: `kadmin-lua undo` puts back what
-- a run moved. With --dry-run (before `run`) nothing changes: the plan, its batches and the
-- bytes each would copy are printed.
-- Returns a row per broker: broker, replicas_before, leaders_before, replicas, leaders, empty,
-- unregistered.
-- Exit codes: 0 drained (or, with --dry-run, planned); 1 bad arguments, an unknown broker, or
--   --unregister of a broker still running; 3 Kafka error (a move refused or failed: the message
--   names the partition; --resume goes on); 4 a broker still holds replicas or leaders after the run;
--   130 interrupted (moves in flight go on unless cancelled; --resume finishes the run).
-- Example:
--   kadmin-lua --dry-run run scripts/drain-broker.lua 4 --max-moves-per-broker 2
--   kadmin-lua --audit-log audit.jsonl run scripts/drain-broker.lua 4 --max-moves-per-broker 2 --throttle 50MiB
--   kadmin-lua --audit-log audit.jsonl run scripts/drain-broker.lua 4 --resume
--   kadmin-lua run scripts/drain-broker.lua 4 --demote-only
local args = require("lib.args")
local moving = require("lib.moving")

local a = args.parse{usage = "drain-broker.lua BROKER... " .. moving.usage .. " [--demote-only] [--unregister]", min = 1,
  flags = moving.flags{["demote-only"] = "boolean", unregister = "boolean"}}
if not a then return end
local o = moving.options(a)
local demote, unregister = a.flags["demote-only"], a.flags.unregister
if demote and unregister then args.usage_error("--unregister empties the brokers first: it cannot go with --demote-only") end

local cluster = describe_cluster()
local state, ids = {}, {}
for _, b in ipairs(cluster.brokers) do
  state[b.id] = b.state
  if b.state ~= "unregistered" then ids[#ids + 1] = tostring(b.id) end
end
local brokers, seen = {}, {}
for i = 1, #a do
  local id = args.integer(a[i], "BROKER", 0)
  if not state[id] or state[id] == "unregistered" then
    args.usage_error(string.format("broker %d is not in the cluster (brokers: %s)", id, table.concat(ids, ", ")))
  end
  if not seen[id] then brokers[#brokers + 1], seen[id] = id, true end
end
if #brokers >= #ids then
  kafka.fail(string.format("draining brokers %s leaves no broker for their replicas; nothing changed", table.concat(ids, ", ")))
end

moving.finish_interrupted(o)
local before = moving.per_broker()
local plan = plan_reassignment{drain = brokers, leaders_only = demote or nil}
for _, note in ipairs(plan.notes or {}) do kafka.log.warn(note) end

-- Step 1: leadership off (for --demote-only, the plan's partitions are those reorders).
local leadership = demote and plan.partitions or plan.leadership or {}
moving.run("step 1, leadership", leadership, o)
if not demote then
  -- Plan again from the reordered replicas: the data plan must match the layout it moves
  -- (reassign refuses a stale plan). Under --dry-run nothing was reordered.
  if #leadership > 0 and not args.dry_run() then plan = plan_reassignment{drain = brokers} end
  moving.run("step 2, replicas", plan.partitions, o)
end

-- Under --dry-run, what the plan leaves on each broker; else what the cluster says.
local after = moving.per_broker_after(args.dry_run() and plan)
local cols = {"broker", "replicas_before", "leaders_before", "replicas", "leaders", "empty", "unregistered"}
local rows, left = {}, {}
for _, id in ipairs(brokers) do
  local b, n = before[id] or {replicas = 0, leaders = 0}, after[id] or {replicas = 0, leaders = 0}
  local empty = n.replicas == 0 and n.leaders == 0
  rows[#rows + 1] = args.record(cols, {broker = id, replicas_before = b.replicas, leaders_before = b.leaders,
    replicas = n.replicas, leaders = n.leaders, empty = empty, unregistered = false})
  local done = demote and n.leaders == 0 or empty
  if not args.dry_run() and not done then
    left[#left + 1] = id
    kafka.check(false, string.format("broker %d still holds %d replica(s) and leads %d partition(s)", id, n.replicas, n.leaders))
  end
end
if #left > 0 or args.dry_run() then return rows end

for _, r in ipairs(rows) do
  args.say("broker %d: %s", r.broker, demote and "leads nothing" or "empty: no replica, no leader")
end
if unregister then
  for _, r in ipairs(rows) do
    if state[r.broker] == "live" then
      kafka.fail(string.format("broker %d is empty but still running: shut it down, then run drain-broker.lua %d --unregister (Kafka does not refuse a running broker)", r.broker, r.broker))
    end
  end
  for _, r in ipairs(rows) do
    unregister_broker(r.broker)
    r.unregistered = true
    args.say("broker %d unregistered", r.broker)
  end
end
return rows
