-- cluster-health.lua: are all brokers live, the quorum led, every partition led and in sync?
--
-- Usage:    kadmin-lua run scripts/cluster-health.lua [--brokers N] [--quorum-lag-ms MS]
-- Arguments:
--   --brokers N         the number of live brokers the cluster should have; fewer fails a check
--   --quorum-lag-ms MS  a quorum voter not caught up with the leader for longer fails a
--                       check (default 30000)
-- Looks at every broker, the KRaft metadata quorum and every topic (internal
-- ones included) and fails a check for each kind of problem found:
--   fenced           brokers registered but fenced (stopped, or not caught up)
--   unregistered     brokers named in partition replicas but not registered (or,
--                    before Kafka 4.0, not live)
--   quorum           no active controller (the quorum has no leader), or voters
--                    not caught up for longer than --quorum-lag-ms
--   offline          partitions without a leader (unreadable and unwritable)
--   under_replicated partitions whose ISR is smaller than their replica set
--                    (offline replicas included)
--   under_min_isr    partitions whose ISR is below the topic's
--                    min.insync.replicas (acks=all producers are refused)
--   fewer live brokers than --brokers
-- A cluster without a metadata quorum to ask (ZooKeeper-era, or DESCRIBE on the
-- cluster not allowed) is judged by the controller its Metadata names.
-- Returns one row: cluster_id, active_controller, brokers (live), fenced,
-- unregistered, quorum_voters, topics, partitions, the count of each partition
-- problem, problems (a row per sick partition) and broker_states (a row per
-- broker). Changes nothing.
-- Metrics (written by --metrics-file, see docs/scheduling.md):
--   kafka_cluster_brokers, kafka_cluster_fenced_brokers, kafka_cluster_unregistered_brokers,
--   kafka_cluster_quorum_voters, kafka_cluster_quorum_voters_behind,
--   kafka_cluster_topics, kafka_cluster_partitions
--   kafka_cluster_offline_partitions, kafka_cluster_under_replicated_partitions,
--   kafka_cluster_under_min_isr_partitions
--   kafka_cluster_active_controller   1 when the cluster has an active controller, else 0
-- Exit codes: 0 healthy; 1 bad arguments; 3 Kafka unreachable or a Kafka error;
--   4 at least one problem.
-- Example:
--   kadmin-lua --profile prod run scripts/cluster-health.lua --brokers 6
--   kadmin-lua -o json run scripts/cluster-health.lua | jq '.[0].problems'
local args = require("lib.args")

local a = args.parse{usage = "cluster-health.lua [--brokers N] [--quorum-lag-ms MS]", max = 0,
  flags = {brokers = "string", ["quorum-lag-ms"] = "string"}}
if not a then return end
local want_brokers = a.flags.brokers and args.integer(a.flags.brokers, "--brokers", 1)
local quorum_lag_ms = a.flags["quorum-lag-ms"] and args.integer(a.flags["quorum-lag-ms"], "--quorum-lag-ms", 0) or 30000

local cluster = describe_cluster()
local topics = describe_topics()
local names = {}
for i, t in ipairs(topics) do names[i] = t.name end
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

-- Brokers: every one registered and live.
local states, live, fenced, unregistered, offline = {}, 0, {}, {}, {}
for _, b in ipairs(cluster.brokers) do
  states[#states + 1] = args.record({"broker", "state", "host", "port"}, {broker = b.id, state = b.state, host = b.host, port = b.port})
  if b.state == "live" then live = live + 1
  elseif b.state == "fenced" then fenced[#fenced + 1] = b.id
  elseif b.state == "offline" then offline[#offline + 1] = b.id -- before Kafka 4.0: fenced or unregistered
  else unregistered[#unregistered + 1] = b.id end
end
local function ids(list) local s = {} for i, id in ipairs(list) do s[i] = tostring(id) end return table.concat(s, ", ") end
if #fenced > 0 then
  failed = failed + 1
  kafka.check(false, string.format("%d broker%s fenced: %s", #fenced, #fenced == 1 and "" or "s", ids(fenced)))
end
if #unregistered > 0 then
  failed = failed + 1
  kafka.check(false, string.format("%d broker%s in partition replicas but not registered: %s", #unregistered,
    #unregistered == 1 and "" or "s", ids(unregistered)))
end
if #offline > 0 then
  failed = failed + 1
  kafka.check(false, string.format("%d broker%s in partition replicas but not live: %s", #offline,
    #offline == 1 and "" or "s", ids(offline)))
end
if want_brokers and live < want_brokers then
  failed = failed + 1
  kafka.check(false, string.format("%d of %d brokers are up", live, want_brokers))
end

-- The metadata quorum: led, and every voter caught up.
local ok, quorum = pcall(describe_quorum)
local active, voters, behind = cluster.active_controller, nil, {}
if ok then
  voters = #quorum.voters
  local now = kafka.now()
  for _, v in ipairs(quorum.voters) do
    local since = v.last_caught_up_timestamp >= 0 and now - v.last_caught_up_timestamp or nil
    if v.id ~= quorum.leader and v.lag > 0 and (since == nil or since > quorum_lag_ms) then
      behind[#behind + 1] = string.format("%d (%d records behind%s)", v.id, v.lag,
        since and string.format(", caught up %ds ago", math.floor(since / 1000)) or ", last caught up: unknown")
    end
  end
  if quorum.leader < 0 then
    failed = failed + 1
    kafka.check(false, "no active controller: the metadata quorum has no leader")
  end
  if #behind > 0 then
    failed = failed + 1
    kafka.check(false, string.format("%d of %d quorum voters not caught up for over %d ms: %s", #behind, voters,
      quorum_lag_ms, table.concat(behind, ", ")))
  end
elseif cluster.controller < 0 then
  -- No quorum to ask (ZooKeeper-era, or not allowed): the controller Metadata names.
  failed = failed + 1
  kafka.check(false, "no active controller")
end
local has_controller = (ok and quorum.leader >= 0) or (not ok and cluster.controller >= 0)

for name, v in pairs{brokers = {live, "Live brokers (registered and unfenced)."},
    fenced_brokers = {#fenced, "Brokers registered but fenced."},
    unregistered_brokers = {#unregistered + #offline, "Brokers named in partition replicas but not registered (before Kafka 4.0: not live)."},
    quorum_voters = {voters or 0, "Voters of the KRaft metadata quorum (0 when it cannot be asked)."},
    quorum_voters_behind = {#behind, "Quorum voters not caught up with the leader for over --quorum-lag-ms."},
    topics = {#names, "Topics, internal ones included."},
    partitions = {npartitions, "Partitions of every topic."},
    offline_partitions = {count.offline, "Partitions without a leader."},
    under_replicated_partitions = {count.under_replicated, "Partitions whose ISR is smaller than their replica set."},
    under_min_isr_partitions = {count.under_min_isr, "Partitions whose ISR is below the topic's min.insync.replicas."},
    active_controller = {has_controller and 1 or 0, "1 when the cluster has an active controller, else 0."}} do
  kafka.metric("kafka_cluster_" .. name, v[1], nil, v[2])
end

args.say("%s: %d brokers live, %d fenced, active controller %s, %d topics, %d partitions: %s", cluster.cluster_id, live,
  #fenced, active and tostring(active) or (ok and "none" or "unknown"), #names, npartitions, failed == 0 and "healthy" or
  string.format("%d offline, %d under-replicated, %d under min ISR", count.offline, count.under_replicated, count.under_min_isr))
return {args.record({"cluster_id", "active_controller", "brokers", "fenced", "unregistered", "quorum_voters", "topics",
  "partitions", "offline", "under_replicated", "under_min_isr", "problems", "broker_states"}, {cluster_id = cluster.cluster_id,
  active_controller = active, brokers = live, fenced = #fenced, unregistered = #unregistered + #offline, quorum_voters = voters,
  topics = #names, partitions = npartitions, offline = count.offline, under_replicated = count.under_replicated,
  under_min_isr = count.under_min_isr, problems = problems, broker_states = states})}
