-- diff-clusters.lua: what differs between two clusters: topics, partition counts, configs, ACLs.
--
-- Usage:    kadmin-lua run scripts/diff-clusters.lua A B [--match RE] [--internal]
-- Arguments:
--   A, B        the clusters: a profile of the config file (prod-eu), or seed
--               brokers host:port[,host:port...] (reached without credentials)
--   --match RE  compare only topics whose name matches the RE2 expression RE
--   --internal  compare internal topics (__consumer_offsets, ...) too
-- Compares, for topics present in both, the partition count, the replication
-- factor and the configs set on the topic on either side (source
-- DYNAMIC_TOPIC_CONFIG; sensitive ones are left out), and every ACL. Returns a row
-- per difference: kind (topic, partitions, replication_factor, config, acl),
-- resource, key, a (A's side) and b (B's side); a missing topic or ACL is
-- "missing". A cluster without an authorizer has no ACLs to compare. Each kind
-- with differences fails a check. Changes nothing.
-- Metrics (--metrics-file): kafka_clusters_differences{kind,a,b}.
-- Exit codes: 0 the clusters match; 1 bad arguments; 3 a cluster unreachable or a
--   Kafka error; 4 at least one difference.
-- Example:
--   kadmin-lua run scripts/diff-clusters.lua prod-eu dr-eu
--   kadmin-lua -o json run scripts/diff-clusters.lua prod-eu dr-eu --match '^orders' | jq '.[].kind'
local args = require("lib.args")

local a = args.parse{usage = "diff-clusters.lua A B [--match RE] [--internal]", min = 2, max = 2,
  flags = {match = "string", internal = "boolean"}}
if not a then return end
local names = {a[1], a[2]}
if names[1] == names[2] then args.usage_error(string.format("A and B are the same cluster (%s)", names[1])) end

local function connect(name)
  if name == "" then args.usage_error("A and B must not be empty") end
  if name:find(":", 1, true) then return kafka.connect{brokers = name} end
  return kafka.connect{profile = name}
end
local A, B = connect(names[1]), connect(names[2])

local rows = {}
local cols = {"kind", "resource", "key", "a", "b"}
local function differ(kind, resource, key, va, vb)
  rows[#rows + 1] = args.record(cols, {kind = kind, resource = resource, key = key, a = va, b = vb})
end

-- Topics.
local list_opts = {internal = a.flags.internal or false, match = a.flags.match}
local function topics(c)
  local by = {}
  for _, t in ipairs(c:list_topics(list_opts)) do by[t.name] = t end
  return by
end
local ta, tb = topics(A), topics(B)
local both = {}
local all = {}
for n in pairs(ta) do all[#all + 1] = n end
for n in pairs(tb) do if not ta[n] then all[#all + 1] = n end end
table.sort(all)
for _, n in ipairs(all) do
  local x, y = ta[n], tb[n]
  if not x or not y then
    differ("topic", n, nil, x and "present" or "missing", y and "present" or "missing")
  else
    both[#both + 1] = n
    if x.partitions ~= y.partitions then differ("partitions", n, nil, x.partitions, y.partitions) end
    if x.replication_factor ~= y.replication_factor then
      differ("replication_factor", n, nil, x.replication_factor, y.replication_factor)
    end
  end
end

-- Configs set on the topic on either side.
local function configs(c)
  if #both == 0 then return {} end
  local resources = {}
  for i, n in ipairs(both) do resources[i] = {topic = n} end
  local by = {}
  for _, r in ipairs(c:describe_configs(resources)) do by[r.name] = r.configs end
  return by
end
local ca, cb = configs(A), configs(B)
for _, n in ipairs(both) do
  local x, y = ca[n] or {}, cb[n] or {}
  local keys, seen = {}, {}
  for _, side in ipairs{x, y} do
    for k, e in pairs(side) do
      if e.source == "DYNAMIC_TOPIC_CONFIG" and not e.sensitive and not seen[k] then
        seen[k] = true
        keys[#keys + 1] = k
      end
    end
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local vx = x[k] and x[k].value or "missing"
    local vy = y[k] and y[k].value or "missing"
    if vx ~= vy then differ("config", n, k, vx, vy) end
  end
end

-- ACLs: every one, as a set on each side.
local function acls(c)
  local ok, res = pcall(c.describe_acls, c)
  if ok then
    local set = {}
    for _, r in ipairs(res) do
      local resource = string.format("%s:%s (%s)", r.resource_type, r.resource_name, r.pattern_type)
      set[resource .. "\0" .. string.format("%s %s %s from %s", r.principal, r.permission, r.operation, r.host)] = true
    end
    return set
  end
  if type(res) == "table" and res.code == "SECURITY_DISABLED" then return nil end
  error(res, 0)
end
local aa, ab = acls(A), acls(B)
if (aa == nil) ~= (ab == nil) then
  differ("acl", "cluster", "authorizer", aa and "enabled" or "disabled", ab and "enabled" or "disabled")
end
aa, ab = aa or {}, ab or {}
local keys = {}
for k in pairs(aa) do if not ab[k] then keys[#keys + 1] = k end end
for k in pairs(ab) do if not aa[k] then keys[#keys + 1] = k end end
table.sort(keys)
for _, k in ipairs(keys) do
  local resource, key = k:match("^(.-)%z(.*)$")
  differ("acl", resource, key, aa[k] and "present" or "missing", ab[k] and "present" or "missing")
end

-- Checks, metrics and the summary.
local kinds = {"topic", "partitions", "replication_factor", "config", "acl"}
local nouns = {topic = "topics present on one side only", partitions = "partition counts",
  replication_factor = "replication factors", config = "topic configs", acl = "ACLs"}
local count = {}
for _, k in ipairs(kinds) do count[k] = 0 end
for _, r in ipairs(rows) do count[r.kind] = count[r.kind] + 1 end
local parts = {}
for _, k in ipairs(kinds) do
  kafka.metric("kafka_clusters_differences", count[k], {kind = k, a = names[1], b = names[2]},
    "Differences diff-clusters found between clusters a and b, by kind.")
  if count[k] > 0 then
    parts[#parts + 1] = string.format("%d %s", count[k], nouns[k])
    kafka.check(false, string.format("%s and %s differ: %d %s", names[1], names[2], count[k], nouns[k]))
  end
end
args.say("%s vs %s: %d topics in both; %s", names[1], names[2], #both,
  #rows == 0 and "no differences" or table.concat(parts, ", ") .. " differ")
return rows
