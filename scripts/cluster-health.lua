-- cluster-health.lua: is every partition led, fully replicated and writable?
--
-- Usage:    kadmin-lua run scripts/cluster-health.lua [--brokers N]
-- Arguments:
--   --brokers N  the number of brokers the cluster should have; fewer fails a check
-- Looks at every topic (internal ones included) and fails a check for each kind
-- of problem found:
--   offline          partitions without a leader (unreadable and unwritable)
--   under_replicated partitions whose ISR is smaller than their replica set
--                    (offline replicas included)
--   under_min_isr    partitions whose ISR is below the topic's
--                    min.insync.replicas (acks=all producers are refused)
--   no controller, or fewer brokers than --brokers
-- Returns one row: cluster_id, controller, brokers, topics, partitions, the
-- count of each problem and problems (a row per sick partition). Changes nothing.
-- Metrics (written by --metrics-file, see docs/scheduling.md):
--   kafka_cluster_brokers, kafka_cluster_topics, kafka_cluster_partitions
--   kafka_cluster_offline_partitions, kafka_cluster_under_replicated_partitions,
--   kafka_cluster_under_min_isr_partitions
--   kafka_cluster_active_controller   1 when the cluster has a controller, else 0
-- Exit codes: 0 healthy; 1 bad arguments; 3 Kafka unreachable or a Kafka error;
--   4 at least one problem.
-- Example:
--   kadmin-lua --profile prod run scripts/cluster-health.lua --brokers 6
--   kadmin-lua -o json run scripts/cluster-health.lua | jq '.[0].problems'
local args = require("lib.args")

local a = args.parse{usage = "cluster-health.lua [--brokers N]", max = 0, flags = {brokers = "string"}}
if not a then return end
local want_brokers = a.flags.brokers and args.integer(a.flags.brokers, "--brokers", 1)

local cluster = describe_cluster()
local names = {}
for _, t in ipairs(list_topics{internal = true}) do names[#names + 1] = t.name end

local topics = #names > 0 and describe_topics(names) or {}
local min_isr = {}
if #names > 0 then
  local resources = {}
  for i, n in ipairs(names) do resources[i] = {topic = n} end
  for _, r in ipairs(describe_configs(resources, {keys = {"min.insync.replicas"}})) do
    local c = r.configs["min.insync.replicas"]
    min_isr[r.name] = c and tonumber(c.value) or 1
  end
end

local cols = {"topic", "partition", "leader", "replicas", "isr", "offline_replicas", "problem"}
local problems, count, examples = {}, {offline = 0, under_replicated = 0, under_min_isr = 0}, {}
local npartitions = 0
local function note(kind, t, p, text)
  count[kind] = count[kind] + 1
  examples[kind] = examples[kind] or {}
  if #examples[kind] < 10 then table.insert(examples[kind], string.format("%s[%d]", t.name, p.partition)) end
  problems[#problems + 1] = args.record(cols, {topic = t.name, partition = p.partition, leader = p.leader,
    replicas = p.replicas, isr = p.isr, offline_replicas = p.offline_replicas, problem = text})
end
for _, t in ipairs(topics) do
  for _, p in ipairs(t.partitions) do
    npartitions = npartitions + 1
    local isr, replicas = #p.isr, #p.replicas
    if p.leader < 0 then
      note("offline", t, p, "offline: no leader")
    elseif isr < replicas then
      local off = #p.offline_replicas > 0 and string.format(", %d replica(s) offline", #p.offline_replicas) or ""
      note("under_replicated", t, p, string.format("under-replicated: %d of %d replicas in sync%s", isr, replicas, off))
    end
    local m = min_isr[t.name] or 1
    if p.leader >= 0 and isr < m then
      note("under_min_isr", t, p, string.format("under min ISR: %d in sync, min.insync.replicas=%d", isr, m))
    end
  end
end

local labels = {offline = "without a leader", under_replicated = "under-replicated",
  under_min_isr = "below min.insync.replicas"}
local failed = 0
for _, kind in ipairs{"offline", "under_replicated", "under_min_isr"} do
  if count[kind] > 0 then
    failed = failed + 1
    local more = count[kind] > #examples[kind] and ", ..." or ""
    kafka.check(false, string.format("%d partition%s %s: %s%s", count[kind], count[kind] == 1 and "" or "s",
      labels[kind], table.concat(examples[kind], ", "), more))
  end
end
if cluster.controller < 0 then
  failed = failed + 1
  kafka.check(false, "no active controller")
end
if want_brokers and #cluster.brokers < want_brokers then
  failed = failed + 1
  kafka.check(false, string.format("%d of %d brokers are up", #cluster.brokers, want_brokers))
end

for name, v in pairs{brokers = {#cluster.brokers, "Brokers in the cluster's metadata."},
    topics = {#names, "Topics, internal ones included."},
    partitions = {npartitions, "Partitions of every topic."},
    offline_partitions = {count.offline, "Partitions without a leader."},
    under_replicated_partitions = {count.under_replicated, "Partitions whose ISR is smaller than their replica set."},
    under_min_isr_partitions = {count.under_min_isr, "Partitions whose ISR is below the topic's min.insync.replicas."},
    active_controller = {cluster.controller >= 0 and 1 or 0, "1 when the cluster has an active controller, else 0."}} do
  kafka.metric("kafka_cluster_" .. name, v[1], nil, v[2])
end

args.say("%s: %d brokers, controller %d, %d topics, %d partitions: %s", cluster.cluster_id, #cluster.brokers,
  cluster.controller, #names, npartitions, failed == 0 and "healthy" or string.format(
    "%d offline, %d under-replicated, %d under min ISR", count.offline, count.under_replicated, count.under_min_isr))
return {args.record({"cluster_id", "controller", "brokers", "topics", "partitions", "offline", "under_replicated",
  "under_min_isr", "problems"}, {cluster_id = cluster.cluster_id, controller = cluster.controller,
  brokers = #cluster.brokers, topics = #names, partitions = npartitions, offline = count.offline,
  under_replicated = count.under_replicated, under_min_isr = count.under_min_isr, problems = problems})}
