-- add-partitions.lua: raise a topic to COUNT partitions.
--
-- Usage:    kadmin-lua run scripts/add-partitions.lua TOPIC COUNT
-- Arguments:
--   TOPIC   the topic to grow
--   COUNT   the partition count wanted (a total, not an increment)
-- A topic that already has COUNT partitions is left alone (nothing to do); a
-- COUNT below the current count is refused (Kafka cannot remove partitions).
-- With --dry-run (before `run`) Kafka validates the change and nothing changes.
-- Note: new partitions change which partition a key hashes to; consumers of
-- keyed topics that rely on per-key order should be drained first.
-- Prints one summary line to stderr and returns {topic, before, after, changed}.
-- Exit codes: 0 done or nothing to do; 1 bad arguments or COUNT below the
--   current count (nothing changed); 3 Kafka error (e.g. the topic does not exist).
-- Example:
--   kadmin-lua --dry-run run scripts/add-partitions.lua orders 12
--   kadmin-lua run scripts/add-partitions.lua orders 12
local args = require("lib.args")

local a = args.parse{usage = "add-partitions.lua TOPIC COUNT", min = 2, max = 2}
if not a then return end
local topic = a[1]
if topic == "" then args.usage_error("TOPIC must not be empty") end
local count = args.integer(a[2], "COUNT", 1)

local before = #describe_topics(topic)[1].partitions
if count < before then
  kafka.fail(string.format("%s has %d partitions; Kafka cannot lower a partition count (asked for %d); nothing changed",
    topic, before, count))
end

local columns = {"topic", "before", "after", "changed", "dry_run"}
if count == before then
  args.say("%s already has %d partitions: nothing to do", topic, before)
  return {args.record(columns, {topic = topic, before = before, after = before, changed = false,
    dry_run = args.dry_run()})}
end

create_partitions{[topic] = count}
local after = count
if not args.dry_run() then
  after = #describe_topics(topic)[1].partitions
end
args.say("%s: %d -> %d partitions", topic, before, after)
return {args.record(columns, {topic = topic, before = before, after = after, changed = true, dry_run = args.dry_run()})}
