-- Workload LT (docs/benchmarks.md): lag in time of every group, read from
-- the records; prints how many rows got a time and the oldest of them.
local n, oldest = 0, nil
for _, g in ipairs(lag(nil, {time = true})) do
  for _, p in ipairs(g.partitions) do
    if p.oldest_unconsumed then
      n = n + 1
      if not oldest or p.oldest_unconsumed < oldest then oldest = p.oldest_unconsumed end
    end
  end
end
print(string.format("%d %d", n, oldest or 0))
