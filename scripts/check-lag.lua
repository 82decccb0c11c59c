-- check-lag.lua: a consumer-lag health check for cron.
--
-- Usage:    kadmin-lua run scripts/check-lag.lua [GROUP...] [--max N] [--max-seconds S] [--fail-on-loss]
-- Arguments:
--   GROUP...         consumer groups to check; none means every consumer group
--   --max N          the most records a group may lag in total
--   --max-seconds S  the most seconds a group may lag in time: the age of the oldest
--                    record it has not read (lag{time=true}: read from the records)
--   --fail-on-loss   fail a group that lost records: deleted before it read them
-- At least one of --max and --max-seconds is needed. Each group over a limit fails
-- a check, and so does a named group that does not exist or whose lag cannot be
-- read, and with --fail-on-loss one that lost records; the run then exits 4.
-- Returns a row per group: group, state, total_lag, max, max_lag_seconds,
-- records_lost, ok (and problem when not ok), so -o json gives a machine-readable
-- summary. Changes nothing.
-- Metrics (written by --metrics-file, see docs/scheduling.md):
--   kafka_consumergroup_lag{group,topic}         records behind, summed over the topic's partitions
--   kafka_consumergroup_total_lag{group}         records behind over all the group's topics
--   kafka_consumergroup_max_lag_seconds{group}   with --max-seconds: the oldest unread record's age
--   kafka_consumergroup_records_lost{group}      records deleted before the group read them
--   kafka_consumergroup_at_risk_partitions{group} with --max-seconds: partitions whose lag in
--                                                time is at 80% of their topic's retention.ms
--   kafka_consumergroup_lag_ok{group}            1 when the group is within its limits, else 0
-- Exit codes: 0 every group within its limits; 1 bad arguments; 3 Kafka unreachable
--   or another Kafka error; 4 at least one group over a limit (or missing).
-- Example:
--   kadmin-lua -o json run scripts/check-lag.lua orders-processor billing --max 1000
--   kadmin-lua run scripts/check-lag.lua orders-processor --max-seconds 300 --fail-on-loss
--   */5 * * * * kadmin-lua --profile prod run /opt/kadmin-lua/scripts/check-lag.lua --max 50000
--   kadmin-lua run --profiles 'prod-*' --every 1m --metrics-file /var/lib/node_exporter/lag.prom check-lag.lua --max 50000
local args = require("lib.args")

local a = args.parse{usage = "check-lag.lua [GROUP...] [--max N] [--max-seconds S] [--fail-on-loss]",
  flags = {max = "string", ["max-seconds"] = "string", ["fail-on-loss"] = "boolean"}}
if not a then return end
if a.flags.max == nil and a.flags["max-seconds"] == nil then
  args.usage_error("--max or --max-seconds is required")
end
local max = a.flags.max and args.integer(a.flags.max, "--max", 0)
local max_seconds = a.flags["max-seconds"] and args.integer(a.flags["max-seconds"], "--max-seconds", 0)
local fail_on_loss = a.flags["fail-on-loss"]
local groups = {}
for i = 1, #a do
  if a[i] == "" then args.usage_error("GROUP must not be empty") end
  groups[i] = a[i]
end

local opts = {partial = #groups > 0 or nil, time = max_seconds ~= nil or nil}
local result = lag(#groups > 0 and groups or nil, opts)

local cols = {"group", "state", "total_lag", "max", "max_lag_seconds", "records_lost", "ok", "problem"}
local rows, over = {}, {}
for _, g in ipairs(result) do
  local lag_s = g.max_lag_ms and math.floor(g.max_lag_ms / 1000)
  local row = args.record(cols, {group = g.group, state = g.state, total_lag = g.total_lag, max = max,
    max_lag_seconds = lag_s, records_lost = g.records_lost or 0, ok = true})
  if g.error then
    row.ok, row.problem = false, tostring(g.error.code) .. ": " .. tostring(g.error.message)
    row.total_lag = nil
  elseif max and g.total_lag > max then
    row.ok, row.problem = false, string.format("lags %d records (max %d)", g.total_lag, max)
  elseif max_seconds and lag_s and lag_s > max_seconds then
    row.ok, row.problem = false, string.format("lags %d seconds (max %d)", lag_s, max_seconds)
  elseif fail_on_loss and (g.records_lost or 0) > 0 then
    row.ok, row.problem = false, string.format("lost %d records: deleted before it read them", g.records_lost)
  end
  if not row.ok then
    over[#over + 1] = g.group
    kafka.check(false, g.group .. ": " .. row.problem)
  end
  if not g.error then
    local by_topic = {}
    for _, p in ipairs(g.partitions) do
      if p.lag > 0 then by_topic[p.topic] = (by_topic[p.topic] or 0) + p.lag
      else by_topic[p.topic] = by_topic[p.topic] or 0 end
    end
    for topic, n in pairs(by_topic) do
      kafka.metric("kafka_consumergroup_lag", n, {group = g.group, topic = topic},
        "Records the consumer group is behind the end of the topic, summed over its partitions.")
    end
    kafka.metric("kafka_consumergroup_total_lag", g.total_lag, {group = g.group},
      "Records the consumer group is behind, over all its topics.")
    kafka.metric("kafka_consumergroup_records_lost", g.records_lost or 0, {group = g.group},
      "Records deleted before the consumer group read them (log start minus committed offset).")
    if lag_s then
      kafka.metric("kafka_consumergroup_max_lag_seconds", g.max_lag_ms / 1000, {group = g.group},
        "Age of the oldest record the consumer group has not read, in seconds.")
      kafka.metric("kafka_consumergroup_at_risk_partitions", g.at_risk or 0, {group = g.group},
        "Partitions whose lag in time has reached 80% of their topic's retention.ms.")
    end
  end
  kafka.metric("kafka_consumergroup_lag_ok", row.ok and 1 or 0, {group = g.group},
    "1 when the group is within check-lag's limits and its lag could be read, else 0.")
  rows[#rows + 1] = row
end

local limits = {}
if max then limits[#limits + 1] = max .. " records" end
if max_seconds then limits[#limits + 1] = max_seconds .. " seconds" end
if fail_on_loss then limits[#limits + 1] = "no records lost" end
local limit = table.concat(limits, ", ")
if #over == 0 then
  args.say("%d group%s within %s", #rows, #rows == 1 and "" or "s", limit)
else
  args.say("%d of %d groups over %s, or unreadable: %s", #over, #rows, limit, table.concat(over, ", "))
end
return rows
