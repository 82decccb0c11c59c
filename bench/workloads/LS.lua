-- Workload LS (docs/benchmarks.md): lag_status of every group with a
-- 10-sample state file; prints the lag summed over the groups, as L does
-- over the partitions.
local sum = 0
for _, g in ipairs(lag_status()) do sum = sum + g.total_lag end
print(string.format("%d", sum))
