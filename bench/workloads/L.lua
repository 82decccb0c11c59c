-- Workload L (docs/benchmarks.md): the lag of every group, added up in Lua
-- over every partition row.
local sum = 0
for _, g in ipairs(lag()) do
  for _, p in ipairs(g.partitions) do
    if p.lag > 0 then sum = sum + p.lag end
  end
end
print(string.format("%d", sum))
