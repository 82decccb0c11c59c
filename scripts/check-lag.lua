-- check-lag.lua: a consumer-lag health check for cron.
--
-- Usage:    kadmin-lua run scripts/check-lag.lua [GROUP...] --max N
-- Arguments:
--   GROUP...  consumer groups to check; none means every consumer group
--   --max N   the most records a group may lag in total (required)
-- Each group whose total lag exceeds N fails a check, and so does a named group
-- that does not exist or whose lag cannot be read; the run then exits 4. Returns
-- a row per group: group, state, total_lag, max, ok (and problem when not ok),
-- so -o json gives a machine-readable summary. Changes nothing.
-- Metrics (written by --metrics-file, see docs/scheduling.md):
--   kafka_consumergroup_lag{group,topic}   records behind, summed over the topic's partitions
--   kafka_consumergroup_total_lag{group}   records behind over all the group's topics
--   kafka_consumergroup_lag_ok{group}      1 when the group is within --max, else 0
-- Exit codes: 0 every group within N; 1 bad arguments; 3 Kafka unreachable or
--   another Kafka error; 4 at least one group over N (or missing).
-- Example:
--   kadmin-lua -o json run scripts/check-lag.lua orders-processor billing --max 1000
--   */5 * * * * kadmin-lua --profile prod run /opt/kadmin-lua/scripts/check-lag.lua --max 50000
--   kadmin-lua run --profiles 'prod-*' --every 1m --metrics-file /var/lib/node_exporter/lag.prom check-lag.lua --max 50000
local args = require("lib.args")

local a = args.parse{usage = "check-lag.lua [GROUP...] --max N", flags = {max = "string"}, required = {"max"}}
if not a then return end
local max = args.integer(a.flags.max, "--max", 0)
local groups = {}
for i = 1, #a do
  if a[i] == "" then args.usage_error("GROUP must not be empty") end
  groups[i] = a[i]
end

local result
if #groups > 0 then
  result = lag(groups, {partial = true})
else
  result = lag()
end

local cols = {"group", "state", "total_lag", "max", "ok", "problem"}
local rows, over = {}, {}
for _, g in ipairs(result) do
  local row = args.record(cols, {group = g.group, state = g.state, total_lag = g.total_lag, max = max, ok = true})
  if g.error then
    row.ok, row.problem = false, tostring(g.error.code) .. ": " .. tostring(g.error.message)
    row.total_lag = nil
  elseif g.total_lag > max then
    row.ok, row.problem = false, string.format("lags %d records (max %d)", g.total_lag, max)
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
  end
  kafka.metric("kafka_consumergroup_lag_ok", row.ok and 1 or 0, {group = g.group},
    "1 when the group is within check-lag's --max and its lag could be read, else 0.")
  rows[#rows + 1] = row
end

if #over == 0 then
  args.say("%d group%s within %d records of the end", #rows, #rows == 1 and "" or "s", max)
else
  args.say("%d of %d groups over %d records or unreadable: %s", #over, #rows, max, table.concat(over, ", "))
end
return rows
