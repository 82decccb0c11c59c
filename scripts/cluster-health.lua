-- cluster-health.lua: are all brokers live, the quorum led, every partition led and in sync, leadership even?
--
-- Usage:    kadmin-lua run scripts/cluster-health.lua [--brokers N] [--quorum-lag-ms MS] [--preferred-imbalance-pct PCT] [--leader-skew-pct PCT]
-- Arguments:
--   --brokers N         the number of live brokers the cluster should have; fewer fails a check
--   --quorum-lag-ms MS  a quorum voter not caught up with the leader for longer fails a
--                       check (default 30000)
--   --preferred-imbalance-pct PCT  a live broker not leading more than PCT% of the partitions
--                       it is the preferred leader of (their first replica) fails a check
--                       (default 10, Kafka's leader.imbalance.per.broker.percentage)
--   --leader-skew-pct PCT  a live broker leading more than PCT% of the mean number of
--                       leaders per live broker, or fewer than the mean divided by PCT%,
--                       fails a check (default 150: 8 to 20 when 40 leaders share 3
--                       brokers; the bounds are rounded outwards to whole partitions)
-- Looks at every broker, the KRaft metadata quorum and every topic (internal
-- ones included, read once) and fails a check for each kind of problem found:
--   quorum           no active controller: the quorum has no leader, none
--                    answered within 5 s, or its leader has too few voters
--                    fetching from it to make a majority (the quorum is lost);
--                    or voters not caught up for longer than --quorum-lag-ms
--   unknown          without an active controller nothing says which brokers are
--                    live: their states are unknown (each is asked whether it
--                    answers), and so are the ISRs, which only a controller shrinks
--   fenced           brokers registered but fenced (stopped, or not caught up)
--   unregistered     brokers named in partition replicas but not registered (or,
--                    before Kafka 4.0, not live)
--   offline          partitions without a leader (unreadable and unwritable)
--   unanswered       (quorum lost) partitions whose leader does not answer
--   under_replicated partitions whose ISR is smaller than their replica set
--                    (offline replicas included)
--   under_min_isr    partitions whose ISR is below the topic's
--                    min.insync.replicas (acks=all producers are refused)
--   preferred        live brokers not leading the partitions they are the
--                    preferred leader of (--preferred-imbalance-pct)
--   skew             live brokers leading too many or too few partitions
--                    (--leader-skew-pct)
--   fewer live brokers than --brokers (not judged while the states are unknown)
-- The leadership checks name the call that evens leadership out: a preferred
-- leader election (elect_leaders, kafka-leader-election --election-type
-- PREFERRED), or, when the preferred replicas themselves are uneven, a
-- reassignment (plan_reassignment). A cluster without a metadata quorum to ask
-- (ZooKeeper-era) is judged by the controller its Metadata names.
-- Returns one row: cluster_id, quorum (describe_cluster's: led, no_leader, no_answer,
-- no_majority, none, unknown),
-- active_controller, brokers (live), fenced, unregistered, unknown (brokers),
-- quorum_voters, topics, partitions, the count of each partition problem,
-- preferred_replica_imbalance (partitions not led by their preferred replica,
-- Kafka's PreferredReplicaImbalanceCount), leaders_pct (the most leaders on a
-- live broker against the mean, as skew() says it), problems (a row per sick
-- partition) and broker_states (a row per broker: state, whether it answers
-- when the state is unknown, leaders, partitions it is preferred for, and of
-- those not led by it). A count that cannot be known is nil (null). Changes
-- nothing.
-- Metrics (written by --metrics-file, see docs/scheduling.md; a figure that
-- cannot be known is left out):
--   kafka_cluster_brokers, kafka_cluster_fenced_brokers, kafka_cluster_unregistered_brokers,
--   kafka_cluster_unknown_brokers, kafka_cluster_quorum_voters, kafka_cluster_quorum_voters_behind,
--   kafka_cluster_topics, kafka_cluster_partitions
--   kafka_cluster_offline_partitions, kafka_cluster_under_replicated_partitions,
--   kafka_cluster_under_min_isr_partitions, kafka_cluster_unanswered_partitions,
--   kafka_cluster_preferred_replica_imbalance, kafka_cluster_leaders_pct
--   kafka_cluster_active_controller   1 when the cluster has an active controller, else 0
-- Exit codes: 0 healthy; 1 bad arguments; 3 Kafka unreachable or a Kafka error;
--   4 at least one problem (a lost quorum included).
-- Example:
--   kadmin-lua --profile prod run scripts/cluster-health.lua --brokers 6
--   kadmin-lua -o json run scripts/cluster-health.lua | jq '.[0].problems'
local args = require("lib.args")

local a = args.parse{usage = "cluster-health.lua [--brokers N] [--quorum-lag-ms MS] [--preferred-imbalance-pct PCT] [--leader-skew-pct PCT]",
  max = 0, flags = {brokers = "string", ["quorum-lag-ms"] = "string", ["preferred-imbalance-pct"] = "string",
    ["leader-skew-pct"] = "string"}}
if not a then return end
local want_brokers = a.flags.brokers and args.integer(a.flags.brokers, "--brokers", 1)
local quorum_lag_ms = a.flags["quorum-lag-ms"] and args.integer(a.flags["quorum-lag-ms"], "--quorum-lag-ms", 0) or 30000
local preferred_pct = a.flags["preferred-imbalance-pct"] and
  args.integer(a.flags["preferred-imbalance-pct"], "--preferred-imbalance-pct", 0) or 10
local skew_pct = a.flags["leader-skew-pct"] and args.integer(a.flags["leader-skew-pct"], "--leader-skew-pct", 100) or 150

local cluster = describe_cluster{with_topics = true}
local topics = cluster.topics
local failed = 0
local function fail(msg)
  failed = failed + 1
  kafka.check(false, msg)
end
local function plural(n, word) return string.format("%d %s%s", n, word, n == 1 and "" or "s") end
local function ids(list) local s = {} for i, id in ipairs(list) do s[i] = tostring(id) end return table.concat(s, ", ") end

-- The metadata quorum first: without a leader, nothing below is known for sure.
local known = cluster.quorum == "led" or cluster.quorum == "none"
local active, voters, behind = cluster.active_controller, nil, {}
if cluster.quorum == "no_leader" then
  fail("no active controller: the metadata quorum has no leader (an election, or a majority of its voters down)")
elseif cluster.quorum == "no_answer" then
  fail("metadata quorum lost: no active controller: " .. cluster.quorum_error)
elseif cluster.quorum == "no_majority" then
  fail("metadata quorum lost: " .. cluster.quorum_error)
elseif cluster.quorum == "unknown" then
  fail("metadata quorum unknown: " .. cluster.quorum_error)
elseif cluster.quorum == "none" and cluster.controller < 0 then
  fail("no active controller") -- ZooKeeper-era: the controller Metadata names
elseif cluster.quorum == "led" and active then
  local ok, quorum = pcall(describe_quorum)
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
    if #behind > 0 then
      fail(string.format("%d of %d quorum voters not caught up for over %d ms: %s", #behind, voters,
        quorum_lag_ms, table.concat(behind, ", ")))
    end
  else
    fail("metadata quorum voters unknown: " .. tostring(quorum))
  end
end
local has_controller = (cluster.quorum == "led") or (cluster.quorum == "none" and cluster.controller >= 0)
if cluster.quorum == "none" then voters = 0 end

-- Brokers: every one registered and live.
local states, by_id, live, fenced, unregistered, offline, unknown = {}, {}, {}, {}, {}, {}, {}
local answering, silent, unasked = {}, {}, {}
for _, b in ipairs(cluster.brokers) do
  by_id[b.id] = b
  if b.state == "live" then live[#live + 1] = b.id
  elseif b.state == "fenced" then fenced[#fenced + 1] = b.id
  elseif b.state == "offline" then offline[#offline + 1] = b.id -- before Kafka 4.0: fenced or unregistered
  elseif b.state == "unknown" then
    unknown[#unknown + 1] = b.id
    if b.reachable == true then answering[#answering + 1] = b.id
    elseif b.reachable == false then silent[#silent + 1] = b.id
    else unasked[#unasked + 1] = b.id end
  else unregistered[#unregistered + 1] = b.id end
end
if #unknown > 0 then
  local parts = {}
  if #answering > 0 then parts[#parts + 1] = ids(answering) .. (#answering == 1 and " answers" or " answer") end
  if #silent > 0 then parts[#parts + 1] = ids(silent) .. (#silent == 1 and " does not answer" or " do not answer") end
  if #unasked > 0 then parts[#parts + 1] = ids(unasked) .. " not asked" end
  fail(string.format("%s unknown without an active controller: %s", plural(#unknown, "broker state"), table.concat(parts, "; ")))
end
if #fenced > 0 then fail(string.format("%s fenced: %s", plural(#fenced, "broker"), ids(fenced))) end
if #unregistered > 0 then
  fail(string.format("%s in partition replicas but not registered: %s", plural(#unregistered, "broker"), ids(unregistered)))
end
if #offline > 0 then
  fail(string.format("%s in partition replicas but not live: %s", plural(#offline, "broker"), ids(offline)))
end
if known and want_brokers and #live < want_brokers then
  fail(string.format("%d of %d brokers are up", #live, want_brokers))
end

-- Partitions. Without a controller the ISRs are as the quorum left them (only
-- a controller shrinks them): under-replication is unknown, and what is
-- known is which leaders do not answer.
local min_isr = {}
if known and #topics > 0 then
  local resources = {}
  for _, t in ipairs(topics) do if not t.error then resources[#resources + 1] = {topic = t.name} end end
  for _, r in ipairs(#resources > 0 and describe_configs(resources, {keys = {"min.insync.replicas"}}) or {}) do
    local c = r.configs["min.insync.replicas"]
    min_isr[r.name] = c and tonumber(c.value) or 1
  end
end
local cols = {"topic", "partition", "leader", "replicas", "isr", "offline_replicas", "problem"}
local problems, examples = {}, {}
local count = {offline = 0, unanswered = 0, under_replicated = 0, under_min_isr = 0}
local npartitions = 0
local function note(kind, t, p, text)
  count[kind] = count[kind] + 1
  examples[kind] = examples[kind] or {}
  if #examples[kind] < 10 then table.insert(examples[kind], string.format("%s[%d]", t.name, p.partition)) end
  problems[#problems + 1] = args.record(cols, {topic = t.name, partition = p.partition, leader = p.leader,
    replicas = p.replicas, isr = p.isr, offline_replicas = p.offline_replicas, problem = text})
end
for _, t in ipairs(topics) do
  if t.error then fail(string.format("topic %s could not be described: %s", t.name, tostring(t.error))) end
  for _, p in ipairs(t.partitions) do
    npartitions = npartitions + 1
    local isr, replicas = #p.isr, #p.replicas
    local leader = by_id[p.leader]
    if p.leader < 0 then
      note("offline", t, p, "offline: no leader")
    elseif not known then
      if leader and leader.reachable == false then
        note("unanswered", t, p, string.format("leader %d does not answer", p.leader))
      end
    elseif isr < replicas then
      local off = #p.offline_replicas > 0 and string.format(", %d replica(s) offline", #p.offline_replicas) or ""
      note("under_replicated", t, p, string.format("under-replicated: %d of %d replicas in sync%s", isr, replicas, off))
    end
    local m = min_isr[t.name] or 1
    if known and p.leader >= 0 and isr < m then
      note("under_min_isr", t, p, string.format("under min ISR: %d in sync, min.insync.replicas=%d", isr, m))
    end
  end
end
local labels = {offline = "without a leader", unanswered = "led by a broker that does not answer",
  under_replicated = "under-replicated", under_min_isr = "below min.insync.replicas"}
for _, kind in ipairs{"offline", "unanswered", "under_replicated", "under_min_isr"} do
  if count[kind] > 0 then
    local more = count[kind] > #examples[kind] and ", ..." or ""
    fail(string.format("%s %s: %s%s", plural(count[kind], "partition"), labels[kind], table.concat(examples[kind], ", "), more))
  end
end

-- Leadership: each live broker leads its preferred partitions, and about
-- its share of all of them. Judged only while the brokers' states are known.
local lead, preferred, missed, projected = {}, {}, {}, {}
local imbalance, fixable, fix_topics = 0, {}, {}
local is_live = {}
for _, id in ipairs(live) do is_live[id] = true; lead[id], preferred[id], missed[id], projected[id] = 0, 0, 0, 0 end
local function in_sync(p, id) for _, r in ipairs(p.isr) do if r == id then return true end end return false end
for _, t in ipairs(topics) do
  for _, p in ipairs(t.partitions) do
    local pref = p.replicas[1]
    if p.leader >= 0 and is_live[p.leader] then lead[p.leader] = lead[p.leader] + 1 end
    if pref and p.leader >= 0 and p.leader ~= pref then imbalance = imbalance + 1 end
    -- A partition without a leader is offline (above), not imbalanced.
    local movable = pref and p.leader >= 0 and is_live[pref] and p.leader ~= pref and in_sync(p, pref)
    if pref and p.leader >= 0 and is_live[pref] then
      preferred[pref] = preferred[pref] + 1
      if p.leader ~= pref then missed[pref] = missed[pref] + 1 end
    end
    -- Where the leaders would be after a preferred election.
    local after = movable and pref or p.leader
    if after >= 0 and is_live[after] then projected[after] = projected[after] + 1 end
    if movable then
      fixable[#fixable + 1] = p
      if not fix_topics[t.name] then fix_topics[t.name] = true; fix_topics[#fix_topics + 1] = t.name end
    end
  end
end
local function election()
  local call = "elect_leaders{all = true}"
  if #fix_topics <= 5 then
    local q = {}
    for i, n in ipairs(fix_topics) do q[i] = string.format("%q", n) end
    call = string.format("elect_leaders{topics = {%s}}", table.concat(q, ", "))
  end
  local scope = #fix_topics == 1 and "--topic " .. fix_topics[1] or "--all-topic-partitions"
  return string.format("a preferred leader election moves %s back: kadmin-lua -e '%s' (kafka-leader-election --election-type PREFERRED %s)",
    plural(#fixable, "partition"), call, scope)
end
-- skewed lists the live brokers leading more than hi or fewer than lo.
local nleaders = 0
for _, id in ipairs(live) do nleaders = nleaders + lead[id] end
local mean = #live > 0 and nleaders / #live or 0
local hi, lo = math.ceil(mean * skew_pct / 100 - 1e-9), math.floor(mean * 100 / skew_pct + 1e-9)
local function skewed(counts)
  local out = {}
  for _, id in ipairs(live) do
    if counts[id] > hi or counts[id] < lo then out[#out + 1] = id end
  end
  return out
end
local preferred_report, skew_report, leaders_pct
if known then
  local over = {}
  for _, id in ipairs(live) do
    if preferred[id] > 0 and missed[id] * 100 > preferred_pct * preferred[id] then
      over[#over + 1] = string.format("broker %d leads %d of the %d it is the preferred leader of", id,
        preferred[id] - missed[id], preferred[id])
    end
  end
  if #over > 0 then
    preferred_report = string.format("preferred leaders not leading: %s (over %d%%, --preferred-imbalance-pct, Kafka's leader.imbalance.per.broker.percentage)",
      table.concat(over, "; "), preferred_pct)
    if #fixable > 0 then preferred_report = preferred_report .. "; " .. election()
    else preferred_report = preferred_report .. "; no election can move them yet: their preferred replicas are not in sync" end
    fail(preferred_report)
  end
  local top = 0
  for _, id in ipairs(live) do top = math.max(top, lead[id]) end
  leaders_pct = nleaders > 0 and math.floor(top / mean * 1000 + 0.5) / 10 or 100
  local uneven = skewed(lead)
  if #uneven > 0 then
    local shares = {}
    for _, id in ipairs(uneven) do shares[#shares + 1] = string.format("broker %d leads %d", id, lead[id]) end
    skew_report = string.format("leaders uneven: %s (of %s on %s: mean %.1f, %d to %d allowed by --leader-skew-pct %d)",
      table.concat(shares, ", "), plural(nleaders, "partition"), plural(#live, "live broker"), mean, lo, hi, skew_pct)
    if #skewed(projected) == 0 then skew_report = skew_report .. "; " .. election()
    else
      local q = {}
      for _, t in ipairs(topics) do
        if not t.internal and #q < 5 then q[#q + 1] = string.format("%q", t.name)
        elseif not t.internal then q[6] = "..." end
      end
      skew_report = skew_report .. string.format("; a preferred leader election would not even them (the preferred replicas, " ..
        "first in each partition's replicas, are uneven): move replicas with plan_reassignment{topics = {%s}} and alter_partition_reassignments",
        table.concat(q, ", "))
    end
    fail(skew_report)
  end
end

for _, b in ipairs(cluster.brokers) do
  states[#states + 1] = args.record({"broker", "state", "reachable", "host", "port", "leaders", "preferred", "preferred_not_leading"},
    {broker = b.id, state = b.state, reachable = b.reachable, host = b.host, port = b.port, leaders = lead[b.id],
      preferred = preferred[b.id], preferred_not_leading = missed[b.id]})
end

local function known_only(v) if known then return v end end
for name, v in pairs{brokers = {known_only(#live), "Live brokers (registered and unfenced)."},
    fenced_brokers = {known_only(#fenced), "Brokers registered but fenced."},
    unregistered_brokers = {known_only(#unregistered + #offline), "Brokers named in partition replicas but not registered (before Kafka 4.0: not live)."},
    unknown_brokers = {#unknown, "Brokers whose state is unknown: the metadata quorum has no leader, or none answered."},
    quorum_voters = {voters, "Voters of the KRaft metadata quorum (0 on a cluster without one)."},
    quorum_voters_behind = {voters and #behind, "Quorum voters not caught up with the leader for over --quorum-lag-ms."},
    topics = {#topics, "Topics, internal ones included."},
    partitions = {npartitions, "Partitions of every topic."},
    offline_partitions = {count.offline, "Partitions without a leader."},
    unanswered_partitions = {count.unanswered, "Partitions whose leader does not answer (looked for when the quorum is lost)."},
    under_replicated_partitions = {known_only(count.under_replicated), "Partitions whose ISR is smaller than their replica set."},
    under_min_isr_partitions = {known_only(count.under_min_isr), "Partitions whose ISR is below the topic's min.insync.replicas."},
    preferred_replica_imbalance = {known_only(imbalance), "Partitions not led by their preferred replica (Kafka's PreferredReplicaImbalanceCount)."},
    leaders_pct = {leaders_pct, "The most leaders on a live broker against the mean, in percent (100 is even)."},
    active_controller = {has_controller and 1 or 0, "1 when the cluster has an active controller, else 0."}} do
  if v[1] then kafka.metric("kafka_cluster_" .. name, v[1], nil, v[2]) end
end

local verdict = failed == 0 and "healthy" or plural(failed, "problem")
if known then
  -- Without a quorum (ZooKeeper-era), the controller Kafka's answer names;
  -- with one that will not say (DESCRIBE on the cluster refused), unknown.
  local controller = active and tostring(active) or (cluster.quorum == "led" and "unknown") or
    (has_controller and cluster.controller .. " (as Kafka's answer names it)" or "none")
  args.say("%s: %d brokers live, %d fenced, active controller %s, %s, %s: %s", cluster.cluster_id, #live,
    #fenced, controller, plural(#topics, "topic"), plural(npartitions, "partition"), verdict)
else
  args.say("%s: quorum %s, no active controller, broker states unknown (%d answer), %s, %s seen: %s",
    cluster.cluster_id, cluster.quorum, #answering, plural(#topics, "topic"), plural(npartitions, "partition"), verdict)
end
return {args.record({"cluster_id", "quorum", "active_controller", "brokers", "fenced", "unregistered", "unknown",
  "quorum_voters", "topics", "partitions", "offline", "unanswered", "under_replicated", "under_min_isr",
  "preferred_replica_imbalance", "leaders_pct", "problems", "broker_states"}, {cluster_id = cluster.cluster_id,
  quorum = cluster.quorum, active_controller = active, brokers = known_only(#live), fenced = known_only(#fenced),
  unregistered = known_only(#unregistered + #offline), unknown = #unknown, quorum_voters = voters, topics = #topics,
  partitions = npartitions, offline = count.offline, unanswered = count.unanswered,
  under_replicated = known_only(count.under_replicated), under_min_isr = known_only(count.under_min_isr),
  preferred_replica_imbalance = known_only(imbalance), leaders_pct = leaders_pct, problems = problems,
  broker_states = states})}
