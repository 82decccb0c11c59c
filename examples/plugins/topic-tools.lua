-- topic-tools: an example kadmin-lua plugin (docs/plugins.md says how plugins work).
--
-- Use it with `kadmin-lua --plugin-path examples/plugins ...`, or copy it into
-- ~/.config/kadmin-lua/plugins/. It adds:
--   topic_sizes([topics[, client]])   a global function: bytes on disk per topic
--   kadmin-lua run under-replicated [TOPIC...]
--                                     a command: partitions missing ISR replicas, exit 4 if any

-- Plugin functions call the admin functions on a client: kafka.default (the
-- cluster of -b/--profile/--embedded, the one the globals use) unless the
-- caller passes one made by kafka.connect.
local function topic_sizes(topics, client)
  local c = client or kafka.default
  local dirs = c:describe_log_dirs(topics and {topics = topics} or nil)
  local by_topic, partitions = {}, {}
  for _, d in ipairs(dirs) do
    if d.error then
      kafka.log.warn{msg = "log dir not described", broker = d.broker, dir = d.dir, error = tostring(d.error.code)}
    else
      for _, p in ipairs(d.partitions) do
        local t = by_topic[p.topic]
        if not t then
          t = {topic = p.topic, partitions = 0, replicas = 0, bytes = 0, largest_replica_bytes = 0}
          by_topic[p.topic], partitions[p.topic] = t, {}
        end
        if not partitions[p.topic][p.partition] then
          partitions[p.topic][p.partition] = true
          t.partitions = t.partitions + 1
        end
        t.replicas = t.replicas + 1
        t.bytes = t.bytes + p.size
        if p.size > t.largest_replica_bytes then t.largest_replica_bytes = p.size end
      end
    end
  end
  local out = {}
  for _, t in pairs(by_topic) do out[#out + 1] = t end
  table.sort(out, function(a, b)
    if a.bytes ~= b.bytes then return a.bytes > b.bytes end
    return a.topic < b.topic
  end)
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
  description = "Topic sizes on disk and under-replicated partitions.",
  functions = {
    topic_sizes = {
      summary = "Bytes on disk per topic, all replicas summed, largest first.",
      args = "([topics[, client]])",
      returns = "{{topic=, partitions=, replicas=, bytes=, largest_replica_bytes=}...}",
      doc = "topics is a name or an array of names (default: every topic). bytes sums every replica's size "
        .. "from describe_log_dirs, so a topic with replication factor 3 counts three times; "
        .. "largest_replica_bytes is the biggest single replica. client defaults to kafka.default.",
      example = [[for _, t in ipairs(topic_sizes()) do print(t.topic, t.bytes) end
return topic_sizes("orders")[1].partitions == 6]],
      fn = topic_sizes,
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
