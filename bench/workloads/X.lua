-- Workload X (docs/benchmarks.md): the lag of one group over many
-- partitions, added up in Lua.
local group = ...
local sum = 0
for _, g in ipairs(lag({group})) do
  for _, p in ipairs(g.partitions) do
    if p.lag > 0 then sum = sum + p.lag end
  end
end
print(string.format("%d", sum))
