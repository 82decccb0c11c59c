-- ensure-topics.lua: create the topics a JSON file lists and converge their configs.
--
-- Usage:    kadmin-lua run scripts/ensure-topics.lua FILE.json
-- Arguments:
--   FILE.json  a JSON array of topic specs:
--              [{"name": "orders", "partitions": 12, "replication_factor": 3,
--                "configs": {"retention.ms": 86400000, "cleanup.policy": "delete"}}]
--              name is required; partitions and replication_factor default to the
--              brokers' defaults; config values are strings, numbers, booleans or
--              arrays of strings (list configs). Unknown keys are errors.
-- Idempotent: a missing topic is created; an existing one gets the spec's configs
-- that differ (alter_configs, incremental: configs the spec does not name are left
-- alone) and its partition count raised when the spec asks for more. Nothing is
-- ever deleted. Drift that cannot be fixed here (fewer partitions than the topic
-- has, another replication factor) is reported and fails a check (exit 4).
-- The whole file is validated before anything changes. With --dry-run (before
-- `run`) the rows are the diff, Kafka validates each change and nothing changes.
-- Returns a row per topic: status (create, update, ok, drift; dry_run=false means
-- the create or update was applied), its partitions and replication factor (after
-- the change when applied, as the topic is under --dry-run) and its changes.
-- Exit codes: 0 converged; 1 bad file or arguments (nothing changed); 3 Kafka
--   error (err.results says what was applied); 4 drift that needs a person.
-- Example:
--   kadmin-lua --dry-run run scripts/ensure-topics.lua topics.json
--   kadmin-lua -o json run scripts/ensure-topics.lua topics.json
local args = require("lib.args")

local a = args.parse{usage = "ensure-topics.lua FILE.json", min = 1, max = 1}
if not a then return end
local path = a[1]

local f, ferr = io.open(path, "r")
if not f then args.usage_error("cannot read " .. tostring(ferr)) end
local text = f:read("*a")
f:close()
local ok, specs = pcall(kafka.json.decode, text)
if not ok then kafka.fail(string.format("%s: not valid JSON: %s", path, tostring(specs))) end
if type(specs) ~= "table" or (next(specs) ~= nil and #specs == 0) then
  kafka.fail(path .. ": must be a JSON array of topic specs")
end

-- Validate the whole file first: a mistake in spec #5 must not leave #1-#4 applied.
local function bad(i, name, msg, ...)
  local where = name and string.format("topic #%d (%s)", i, name) or string.format("topic #%d", i)
  kafka.fail(string.format("%s: %s: " .. msg, path, where, ...))
end

local function config_value(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v == math.floor(v) and math.abs(v) < 2^53 then return string.format("%d", v) end
    return tostring(v)
  end
  if t == "table" and (#v > 0 or next(v) == nil) then
    local parts = {}
    for _, s in ipairs(v) do
      if type(s) ~= "string" then return nil end
      parts[#parts + 1] = s
    end
    return table.concat(parts, ",")
  end
  return nil
end

local allowed = {name = true, partitions = true, replication_factor = true, configs = true}
local seen = {}
for i, s in ipairs(specs) do
  if type(s) ~= "table" then bad(i, nil, "must be an object, got %s", type(s)) end
  if type(s.name) ~= "string" or s.name == "" then bad(i, nil, "name must be a non-empty string") end
  for k in pairs(s) do
    if not allowed[k] then bad(i, s.name, "unknown key %q (allowed: name, partitions, replication_factor, configs)", tostring(k)) end
  end
  if seen[s.name] then bad(i, s.name, "listed twice (also topic #%d)", seen[s.name]) end
  seen[s.name] = i
  for _, k in ipairs{"partitions", "replication_factor"} do
    local v = s[k]
    if v ~= nil and (type(v) ~= "number" or v ~= math.floor(v) or v < 1) then
      bad(i, s.name, "%s must be a positive integer, got %s", k, kafka.json.encode(v))
    end
  end
  local cfgs = {}
  if s.configs ~= nil then
    if type(s.configs) ~= "table" or #s.configs > 0 then bad(i, s.name, "configs must be an object") end
    for k, v in pairs(s.configs) do
      local cv = config_value(v)
      if cv == nil then
        bad(i, s.name, "config %s must be a string, number, boolean or array of strings, got %s", k, kafka.json.encode(v))
      end
      cfgs[k] = cv
    end
  end
  s.configs = cfgs
end

-- What the cluster has now.
local existing = {}
for _, t in ipairs(list_topics{internal = true}) do existing[t.name] = t end

local describe, keys, keyset = {}, {}, {}
for _, s in ipairs(specs) do
  if existing[s.name] and next(s.configs) then
    describe[#describe + 1] = {topic = s.name}
    for k in pairs(s.configs) do
      if not keyset[k] then keyset[k] = true; keys[#keys + 1] = k end
    end
  end
end
local current = {}
if #describe > 0 then
  for _, r in ipairs(describe_configs(describe, {keys = keys})) do current[r.name] = r.configs end
end

-- The plan: a row per topic with its changes.
local change_cols = {"setting", "current", "wanted", "action"}
local function change(setting, cur, wanted, action)
  return args.record(change_cols, {setting = setting, current = cur, wanted = wanted, action = action})
end
local sorted_keys = function(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return ks
end

local rows, creates, raises, alters, drift = {}, {}, {}, {}, {}
local row_cols = {"name", "status", "partitions", "replication_factor", "changes", "dry_run"}
for _, s in ipairs(specs) do
  local row = args.record(row_cols, {name = s.name, changes = {}, dry_run = args.dry_run()})
  local t = existing[s.name]
  if not t then
    row.status = "create"
    row.partitions, row.replication_factor = s.partitions, s.replication_factor
    creates[#creates + 1] = {name = s.name, partitions = s.partitions, replication_factor = s.replication_factor,
      configs = next(s.configs) and s.configs or nil}
    for _, k in ipairs(sorted_keys(s.configs)) do
      row.changes[#row.changes + 1] = change(k, nil, s.configs[k], "create")
    end
  else
    row.partitions, row.replication_factor = t.partitions, t.replication_factor
    local set = {}
    if s.partitions and s.partitions > t.partitions then
      row.changes[#row.changes + 1] = change("partitions", t.partitions, s.partitions, "raise")
      raises[s.name] = s.partitions
    elseif s.partitions and s.partitions < t.partitions then
      row.changes[#row.changes + 1] = change("partitions", t.partitions, s.partitions, "none: Kafka cannot lower it")
      drift[#drift + 1] = string.format("%s has %d partitions, the spec says %d (Kafka cannot lower a partition count)",
        s.name, t.partitions, s.partitions)
    end
    if s.replication_factor and s.replication_factor ~= t.replication_factor then
      row.changes[#row.changes + 1] = change("replication_factor", t.replication_factor, s.replication_factor,
        "none: needs a reassignment")
      drift[#drift + 1] = string.format("%s has replication factor %d, the spec says %d (plan_reassignment can move it)",
        s.name, t.replication_factor, s.replication_factor)
    end
    local cfg = current[s.name] or {}
    for _, k in ipairs(sorted_keys(s.configs)) do
      local cur = cfg[k] and cfg[k].value
      if cur ~= s.configs[k] then
        row.changes[#row.changes + 1] = change(k, cur, s.configs[k], "set")
        set[k] = s.configs[k]
      end
    end
    if next(set) then alters[#alters + 1] = {topic = s.name, set = set} end
    local fixable = raises[s.name] or next(set)
    if fixable then row.status = "update"
    elseif #row.changes > 0 then row.status = "drift"
    else row.status = "ok" end
  end
  rows[#rows + 1] = row
end

-- Apply (under --dry-run each call only validates and prints its plan).
if #creates > 0 then
  local created = {}
  for _, r in ipairs(create_topics(creates, {if_not_exists = true})) do created[r.name] = r end
  for _, row in ipairs(rows) do
    local r = created[row.name]
    if r and row.status == "create" then
      row.partitions, row.replication_factor = r.partitions, r.replication_factor
    end
  end
end
if next(raises) then
  create_partitions(raises)
  if not args.dry_run() then
    -- An applied row shows the state after the change.
    for _, row in ipairs(rows) do
      if raises[row.name] then row.partitions = raises[row.name] end
    end
  end
end
if #alters > 0 then alter_configs(alters) end

local n = {create = 0, update = 0, ok = 0, drift = 0}
for _, row in ipairs(rows) do n[row.status] = n[row.status] + 1 end
local verb = args.dry_run() and {"to create", "to update"} or {"created", "updated"}
args.say("%d topics: %d %s, %d %s, %d in sync, %d with drift to fix by hand",
  #rows, n.create, verb[1], n.update, verb[2], n.ok, n.drift)
for _, msg in ipairs(drift) do kafka.check(false, msg) end
return rows
