-- Workload LGS (docs/benchmarks.md): lag_status of every group with a
-- 10-sample state file, as one summary row a group, iterated, summed.
local sum = 0
for g in lag_status(nil, {summary = true, iterate = true}) do sum = sum + g.total_lag end
print(string.format("%d", sum))
