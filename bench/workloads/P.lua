-- Workload P (docs/benchmarks.md): a script returns N rows, printed by
-- -o json or -o table; with "count" it returns only how many there are
-- (the yardstick: the same rows built, nothing printed).
local n, mode = ...
local rows = {}
for i = 1, tonumber(n) do
  rows[i] = {topic = "topic-" .. (i % 100), partition = i % 1000, committed = i, end_offset = i + 7, lag = 7}
end
if mode == "count" then
  return #rows
end
return rows
