-- Workload R (docs/benchmarks.md): a runbook that sets retention.ms on N
-- topics, one alter_configs call per topic.
local prefix, n, value = ...
local count = 0
for i = 0, tonumber(n) - 1 do
  local res = alter_configs({{topic = string.format("%s%05d", prefix, i), set = {["retention.ms"] = value}}})
  count = count + #res
end
print(string.format("%d", count))
