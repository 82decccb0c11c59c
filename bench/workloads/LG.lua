-- Workload LG (docs/benchmarks.md): the lag of every group as one summary
-- row a group, iterated (no table of every group is held), summed.
local sum = 0
for g in lag(nil, {summary = true, iterate = true}) do sum = sum + g.total_lag end
print(string.format("%d", sum))
