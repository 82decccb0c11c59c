-- Workload XJ (docs/benchmarks.md): the lag of one group over many
-- partitions, returned and printed by -o json.
local group = ...
return lag({group})
