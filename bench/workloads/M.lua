-- Workload M (docs/benchmarks.md): lag(), describe_topics() and
-- alter_configs() called N times in one script; its memory must stay
-- flat (compared with a run of N/10 iterations).
local n = tonumber((...))
local sum = 0
for i = 1, n do
  local lags = lag({"m-group"})
  local topics = describe_topics({"m-00000"})
  local altered = alter_configs({{topic = "m-00000", set = {["retention.ms"] = tostring(86400000 + i % 7)}}})
  sum = sum + #lags[1].partitions + #topics[1].partitions + #altered
end
print(string.format("%d", sum))
