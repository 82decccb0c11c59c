-- skip-record.lua: move a stopped group past the record(s) it is stuck on, in one partition.
--
-- Usage:    kadmin-lua run scripts/skip-record.lua GROUP TOPIC PARTITION [--count N] [--force] [--decode MODE]
-- Arguments:
--   GROUP      the consumer group (its consumers must be stopped)
--   TOPIC      the topic of the stuck partition
--   PARTITION  the partition (a number)
--   --count N  how many offsets to skip from the committed one (default 1)
--   --force    remove the group's members that are gone but not yet expired first
--              (crashed consumers, static members within session.timeout.ms);
--              a consumer still running is removed too and rejoins at the new offset
--   --decode MODE  also show the values, decoded through the Schema Registry (peek's decode:
--              auto, avro, protobuf, json): the value as JSON and its schema id; a value that
--              cannot be decoded is shown as its bytes with the reason
-- Shows the record(s) it skips (peek from the group's committed offset: offset,
-- timestamp, key, headers and size; the values only with --decode), then resets exactly that
-- partition's committed offset by N (reset_offsets with to={shift=N}); no other
-- partition is touched. Only the records with offsets in [committed, committed+N)
-- are shown: what the shift skips (transaction markers take offsets too). With
-- --dry-run (before `run`) it shows them and the plan and commits nothing: run that
-- first. An active group is refused (NON_EMPTY_GROUP) before anything is committed,
-- unless --force (reset_offsets' force=true). A record batch too large to decompress
-- (over 64 MiB: a decompression bomb, which is often what a consumer is stuck on) is
-- shown as its offsets and the DECOMPRESS_LIMIT error, and skipped like any record.
-- With --audit-log the reset is written ahead like every mutation, so
-- `kadmin-lua undo FILE` puts the committed offset back.
-- Returns a row per skipped record: topic, partition, offset, timestamp,
-- timestamp_type, key, size, headers, committed (before), target (after) and error (why the
-- record could not be read, when it could not; timestamp is then -1); with --decode also
-- value and value_schema_id, and value_subject and value_version where the registry can
-- tell which subject and version hold that schema id (peek's rules).
-- A timestamp of -1 (a record without one: Kafka allows it) is said as "no timestamp".
-- Exit codes: 0 skipped (or planned, or nothing to skip: the group is at the end);
--   1 bad arguments, or the group has no commit on the partition; 3 Kafka error
--   (e.g. NON_EMPTY_GROUP: the group still has live members).
-- Example:
--   kadmin-lua --dry-run run scripts/skip-record.lua billing payments 0
--   kadmin-lua --audit-log skip.jsonl run scripts/skip-record.lua billing payments 0 --count 2
--   kadmin-lua --dry-run run scripts/skip-record.lua orders-processor orders 4 --force
--   kadmin-lua --schema-registry http://registry:8081 run scripts/skip-record.lua billing payments 0 --decode auto
--   kadmin-lua undo skip.jsonl
local args = require("lib.args")

local usage = "skip-record.lua GROUP TOPIC PARTITION [--count N] [--force] [--decode MODE]"
local a = args.parse{usage = usage, min = 3, max = 3, flags = {count = "string", force = "boolean", decode = "string"}}
if not a then return end
local group, topic = a[1], a[2]
if group == "" then args.usage_error("GROUP must not be empty") end
if topic == "" then args.usage_error("TOPIC must not be empty") end
local partition = args.integer(a[3], "PARTITION", 0)
local count = args.integer(a.flags.count or "1", "--count", 1)
if count > 10000 then args.usage_error(string.format("--count must be at most 10000, got %d", count)) end
local where = string.format("%s[%d]", topic, partition)
local decode = a.flags.decode
local modes = {auto = true, avro = true, protobuf = true, json = true}
if decode ~= nil and not modes[decode] then
  args.usage_error(string.format("--decode must be auto, avro, protobuf or json, got %q", decode))
end

local committed
for _, o in ipairs(fetch_offsets(group, topic)) do
  if o.partition == partition then committed = o.offset end
end
if committed == nil then
  kafka.fail(string.format("%s has no partition %d", topic, partition))
elseif committed < 0 then
  kafka.fail(string.format("%s has no committed offset on %s: nothing to skip from", group, where))
end

local records = peek(topic, partition, {group = group}, {count = count, decode = decode and {value = decode} or nil})
local target = committed + count
local rows = {}
local cols = {"topic", "partition", "offset", "timestamp", "timestamp_type", "key", "size", "headers", "committed", "target", "error"}
if decode then
  table.insert(cols, 7, "value")
  table.insert(cols, 8, "value_schema_id")
  table.insert(cols, 9, "value_subject")
  table.insert(cols, 10, "value_version")
end
for _, r in ipairs(records) do
  if r.offset < target then
    rows[#rows + 1] = args.record(cols, {topic = topic, partition = partition, offset = r.offset, timestamp = r.timestamp,
      timestamp_type = r.timestamp_type, key = r.key, size = r.size, headers = r.headers,
      value = decode and r.value or nil, value_schema_id = r.value_schema_id,
      value_subject = r.value_subject, value_version = r.value_version,
      committed = committed, target = target, error = r.error and (r.error.code .. ": " .. r.error.message) or nil})
  end
end
if #rows == 0 then
  args.say("%s: nothing to skip on %s: the committed offset %d is at the end", group, where, committed)
  return rows
end

-- The reset refuses an active group (NON_EMPTY_GROUP) before the records
-- are said to be skipped.
local reset = reset_offsets{group = group, topics = {{topic = topic, partition = partition}}, to = {shift = count},
  force = a.flags.force or nil}
local r = reset[1]
local verb = args.dry_run() and "would skip" or "skipped"
for _, row in ipairs(rows) do
  row.target = r.target
  if row.error and row.value == nil then
    args.say("%s: %s %s offset %d, not read: %s", group, verb, where, row.offset, row.error)
  else
    -- -1 is a record without a timestamp (Kafka allows it), not 1969.
    local when = row.timestamp >= 0 and os.date("!%Y-%m-%dT%H:%M:%SZ", math.floor(row.timestamp / 1000))
      or string.format("no timestamp (%d)", row.timestamp)
    args.say("%s: %s %s offset %d: key %s, %d bytes, %d header%s, %s %s", group, verb, where, row.offset,
      row.key and string.format("%q", row.key) or "null", row.size, #row.headers, #row.headers == 1 and "" or "s",
      row.timestamp_type, when)
    if row.error then -- read, but its value could not be decoded: its bytes and why
      args.say("  value (not decoded: %s): %s", row.error, tostring(row.value))
    elseif decode and row.value ~= nil then
      local schema = ""
      if row.value_schema_id then
        schema = string.format(" (schema id %d%s)", row.value_schema_id, row.value_subject
          and string.format(", %s version %d", row.value_subject, row.value_version) or "")
      end
      args.say("  value%s: %s", schema, type(row.value) == "table" and kafka.json.encode(row.value) or tostring(row.value))
    end
  end
end
args.say("%s: %s %s from %d to %d (%d record%s skipped)", group, args.dry_run() and "would move" or "moved",
  where, r.current, r.target, #rows, #rows == 1 and "" or "s")
return rows
