-- topic-tools: an example kadmin-lua plugin (docs/plugins.md says how plugins work).
--
-- Use it with `kadmin-lua --plugin-path examples/plugins ...`, or copy it into
-- ~/.config/kadmin-lua/plugins/. It adds:
--   empty_topics([topics[, client]])  a global function: topics that hold no records
--   kadmin-lua run under-replicated [TOPIC...]
--                                     a command: partitions missing ISR replicas, exit 4 if any

-- Plugin functions call the admin functions on a client: kafka.default (the
-- cluster of -b/--profile/--embedded, the one the globals use) unless the
-- caller passes one made by kafka.connect.
local function empty_topics(topics, client)
  local c = client or kafka.default
  if topics == nil then
    topics = {}
    for _, t in ipairs(c:list_topics()) do
      if not t.internal then topics[#topics + 1] = t.name end
    end
  elseif type(topics) == "string" then
    topics = {topics}
  end
  if #topics == 0 then return {} end
  local starts = {}
  for _, o in ipairs(c:list_offsets(topics, "earliest")) do starts[o.topic .. "/" .. o.partition] = o.offset end
  local by_topic, order = {}, {}
  for _, o in ipairs(c:list_offsets(topics, "latest")) do
    local t = by_topic[o.topic]
    if not t then
      t = {topic = o.topic, partitions = 0, records = 0}
      by_topic[o.topic], order[#order + 1] = t, o.topic
    end
    t.partitions = t.partitions + 1
    t.records = t.records + (o.offset - (starts[o.topic .. "/" .. o.partition] or 0))
  end
  local out = {}
  table.sort(order)
  for _, name in ipairs(order) do
    local t = by_topic[name]
    if t.records == 0 then out[#out + 1] = {topic = t.topic, partitions = t.partitions} end
  end
  return out
end

-- under_replicated lists the partitions of topics (all non-internal topics
-- when empty) whose ISR is smaller than their replica set.
local function under_replicated(topics)
  if #topics == 0 then
    for _, t in ipairs(list_topics()) do
      if not t.internal then topics[#topics + 1] = t.name end
    end
  end
  local rows = {}
  if #topics == 0 then return rows end
  for _, t in ipairs(describe_topics(topics)) do
    for _, p in ipairs(t.partitions) do
      if #p.isr < #p.replicas then
        rows[#rows + 1] = {topic = t.name, partition = p.partition, leader = p.leader,
                           replicas = p.replicas, isr = p.isr, missing = #p.replicas - #p.isr}
      end
    end
  end
  table.sort(rows, function(a, b)
    if a.topic ~= b.topic then return a.topic < b.topic end
    return a.partition < b.partition
  end)
  return rows
end

return {
  version = "1.0.0",
  description = "Empty topics and under-replicated partitions.",
  functions = {
    empty_topics = {
      summary = "Topics that hold no records (every partition's log start is its end), for clean-up.",
      args = "([topics[, client]])",
      returns = "{{topic=, partitions=}...}",
      doc = "topics is a name or an array of names (default: every non-internal topic). A topic is empty when "
        .. "each partition's earliest offset equals its latest: never written, or every record deleted or expired. "
        .. "client defaults to kafka.default.",
      example = [[create_topics{{name = "scratch", partitions = 2}}
for _, t in ipairs(empty_topics()) do print(t.topic, t.partitions) end
return empty_topics{"orders", "scratch"}[1].topic == "scratch"]],
      fn = empty_topics,
    },
  },
  commands = {
    ["under-replicated"] = {
      summary = "Partitions whose ISR is smaller than their replicas; exit 4 when there are any.",
      usage = "[TOPIC...]",
      doc = "Without TOPIC, every non-internal topic. Prints one row per partition (topic, partition, "
        .. "leader, replicas, isr, missing) and records a failed kafka.check when any is under-replicated.",
      run = function(...)
        local rows = under_replicated({...})
        kafka.check(#rows == 0, string.format("%d under-replicated partition(s)", #rows))
        return rows
      end,
    },
  },
}
