-- Workload DT (docs/benchmarks.md): describe_topics of every topic,
-- streamed, counting the partitions.
local n = 0
for t in describe_topics(nil, {iterate = true}) do n = n + #t.partitions end
print(string.format("%d", n))
