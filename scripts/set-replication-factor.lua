-- set-replication-factor.lua: raise or lower a topic's replication factor, paced.
--
-- Usage:    kadmin-lua run scripts/set-replication-factor.lua TOPIC N [--force] [--max-moves-per-broker N] [--max-moves N] [--throttle BYTES] [--resume]
-- Arguments:
--   TOPIC                      the topic
--   N                          the replication factor wanted, for every partition
--   --force                    lower it below the topic's min.insync.replicas all the same (producers
--                              with acks=all then fail with NOT_ENOUGH_REPLICAS until it is lowered)
--   --max-moves-per-broker N   moves in flight a broker takes part in, joining or leaving (default 5)
--   --max-moves N              partitions moving in the cluster at once, any run's (default 1000)
--   --throttle BYTES           replication throttle per broker while new replicas copy, bytes per
--                              second (52428800, 50MiB, 50MB), lifted when the last move ends
--   --resume                   first finish the run Ctrl-C, kill -9 or a lost connection interrupted
--                              (from the --audit-log it was written to), then change what is left
-- New replicas go last, to the least loaded brokers of racks the partition does not use; a
-- decrease removes a replica sharing a rack, else the most loaded broker's, never the leader
-- (plan_reassignment{replication_factor = N}). The moves go through reassign, paced under the caps,
-- written ahead to --audit-log: `kadmin-lua undo` puts back what a run moved. Then every partition
-- is checked to have N replicas. With --dry-run (before `run`) nothing changes: the plan, its
-- batches and the bytes are printed.
-- Returns a row per partition that changes: topic, partition, replicas_before, replicas.
-- Exit codes: 0 done or nothing to do (with --dry-run, planned); 1 bad arguments, N above the
--   broker count, or N below min.insync.replicas without --force (nothing changed); 3 Kafka error
--   (the topic does not exist, a move refused or failed: the message names the partition); 4 a
--   partition does not have N replicas after the run; 130 interrupted (--resume finishes the run).
-- Example:
--   kadmin-lua --dry-run run scripts/set-replication-factor.lua orders 3
--   kadmin-lua --audit-log audit.jsonl run scripts/set-replication-factor.lua orders 3 --max-moves-per-broker 2 --throttle 50MiB
--   kadmin-lua --audit-log audit.jsonl run scripts/set-replication-factor.lua orders 2
local args = require("lib.args")
local moving = require("lib.moving")

local a = args.parse{usage = "set-replication-factor.lua TOPIC N [--force] " .. moving.usage, min = 2, max = 2,
  flags = moving.flags{force = "boolean"}}
if not a then return end
local o = moving.options(a)
local topic = a[1]
if topic == "" then args.usage_error("TOPIC must not be empty") end
local rf = args.integer(a[2], "N", 1)
if rf > 32767 then args.usage_error(string.format("N must be at most 32767, got %d", rf)) end

local live = 0
for _, b in ipairs(describe_cluster().brokers) do
  if b.state ~= "unregistered" then live = live + 1 end
end
if rf > live then
  kafka.fail(string.format("%s: a replication factor of %d needs %d brokers; the cluster has %d; nothing changed", topic, rf, rf, live))
end
local configs = describe_configs({{topic = topic}}, {keys = {"min.insync.replicas"}})[1].configs
local min_isr = configs["min.insync.replicas"] and tonumber(configs["min.insync.replicas"].value) or 1
if rf < min_isr and not a.flags.force then
  kafka.fail(string.format("%s: min.insync.replicas is %d: with %d replica(s) producers with acks=all fail (NOT_ENOUGH_REPLICAS); lower min.insync.replicas first, or give --force; nothing changed",
    topic, min_isr, rf))
end

moving.finish_interrupted(o)
local plan = plan_reassignment{topics = {topic}, replication_factor = rf}
for _, note in ipairs(plan.notes or {}) do kafka.log.warn(note) end
local cols = {"topic", "partition", "replicas_before", "replicas"}
local rows = {}
for _, p in ipairs(plan.partitions) do
  rows[#rows + 1] = args.record(cols, {topic = p.topic, partition = p.partition, replicas_before = p.current, replicas = p.target})
end
if #rows == 0 then
  args.say("%s: every partition has %d replicas already: nothing to do", topic, rf)
  return rows
end
args.say("plan: %d partition(s) to %d replicas, %d replica(s) to copy", #rows, rf, plan.moves)
moving.run("replication factor", plan.partitions, o)
if args.dry_run() then return rows end

local short = 0
for _, p in ipairs(describe_topics(topic)[1].partitions) do
  if #p.replicas ~= rf then
    short = short + 1
    kafka.check(false, string.format("%s[%d] has %d replicas, not %d", topic, p.partition, #p.replicas, rf))
  end
end
if short == 0 then args.say("%s: every partition has %d replicas", topic, rf) end
return rows
