-- Workload C (docs/benchmarks.md): create then delete N topics of 6
-- partitions, replication factor 1, each in one call.
local prefix, n = ...
local specs, names = {}, {}
for i = 0, tonumber(n) - 1 do
  local name = string.format("%s%05d", prefix, i)
  names[#names + 1] = name
  specs[#specs + 1] = {name = name, partitions = 6, replication_factor = 1}
end
local created = create_topics(specs)
local deleted = delete_topics(names)
print(#created .. " " .. #deleted)
