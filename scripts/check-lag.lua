-- check-lag.lua: a consumer-lag health check for cron.
--
-- Usage:    kadmin-lua run scripts/check-lag.lua [GROUP...] [--max N] [--max-seconds S] [--fail-on-loss] [--fail-on-remote] [--min-complete F] [--alert FORMAT] [--alert-after N]
-- Arguments:
--   GROUP...         consumer or streams groups to check; none means every consumer group
--                    and every streams group (Kafka Streams applications, KIP-1071)
--   --max N          the most records a group may lag in total
--   --max-seconds S  the most seconds a group may lag in time: the age of the oldest
--                    record it has not read (lag{time=true}: read from the records); a
--                    group that lost records (deleted before it read them) fails it, since
--                    how far behind it is cannot be known (at least the oldest record left).
--                    A partition whose first unread record has a negative timestamp (none:
--                    Kafka allows it) or one more than a minute ahead of this clock has no
--                    age: it is counted in odd_timestamps and a WARN line names the group,
--                    and --max-seconds judges the group's other partitions (--max and,
--                    with --state, STALL and STOP still judge every one)
--   --fail-on-loss   fail a group that lost records: deleted before it read them
--   --fail-on-remote fail a group reading from remote storage (tiered storage, KIP-405): its
--                    first unread record is below the earliest local offset, so it reads
--                    from object storage, slower and costlier, long before it loses data
--                    (reads the lag in time, as --max-seconds does); a group of which it
--                    cannot be known (the earliest local offset unreadable) fails too
--   --min-complete F judge a lagging partition by Burrow's rules only once its window
--                    covers this fraction of --state-window (Burrow's minimum-complete,
--                    0 to 1; default 1: a whole window)
--   --alert FORMAT   also send each group's verdict to the webhook in $KADMIN_ALERT_URL:
--                    alertmanager, slack or json (kafka.notify; with --state an alert is
--                    sent when it opens, every 4 hours while open, and when it resolves;
--                    a failed delivery is a WARN line, not a failed check). An alert is
--                    labelled alertname=KafkaConsumerGroupLag, group, and severity
--                    warning (WARN) or critical (ERR); lag_status' verdict is its
--                    verdict annotation. WARN turning ERR resolves the warning as the
--                    critical alert opens, and OK resolves the alert with the labels it
--                    opened with, so Alertmanager keeps nothing firing. Every group is
--                    sent, in as many POSTs as it takes.
--   --alert-after N  with --alert: send a new verdict only once N runs in a row gave it
--                    (default 1), so a flapping group does not page; the runs are counted
--                    in the --state file
-- Each group is judged with lag_status: Burrow's rules over the window of samples the
-- state store keeps between runs (kadmin-lua --state FILE run ...; the window is
-- --state-window of time, so from cron each run is judged against the one before),
-- and the limits above on top.
-- A group fails a check when it is over a limit, when its verdict is ERR (a
-- partition STOP, STALL or REWIND: needs --state, since one run is one sample),
-- when a named group does not exist or its lag cannot be read, and with
-- --fail-on-loss when it lost records, with --fail-on-remote when it reads from remote
-- storage; the run then exits 4. WARN (the lag never
-- falls) is reported, not failed. A group whose lagging partitions' windows are not
-- complete yet (the first run, a new group) is INCOMPLETE, never OK: only the limits
-- can fail it, and a WARN line says how many and why.
-- Returns a row per group: group, state, status, total_lag, max, max_lag_seconds,
-- records_lost, reading_remote (partitions, with --max-seconds or --fail-on-remote), odd_timestamps, trend, complete (its least complete window, 0 to 1), ok
-- (and problem when not ok), so -o json gives a machine-readable summary. Changes
-- nothing in the cluster.
-- Metrics (written by --metrics-file, see docs/scheduling.md):
--   kafka_consumergroup_lag{group,topic}         records behind, summed over the topic's partitions
--   kafka_consumergroup_total_lag{group}         records behind over all the group's topics
--   kafka_consumergroup_max_lag_seconds{group}   with --max-seconds: the oldest unread record's age
--   kafka_consumergroup_records_lost{group}      records deleted before the group read them
--   kafka_consumergroup_at_risk_partitions{group} with --max-seconds: partitions whose lag in
--                                                time is at 80% of their topic's retention.ms (left
--                                                out when not known: a lagging topic's configs could
--                                                not be read, or remote_unknown says why)
--   kafka_consumergroup_reading_remote_partitions{group} with --max-seconds or --fail-on-remote:
--                                                partitions read from remote storage (left out when
--                                                not known)
--   kafka_consumergroup_status{group}            the verdict, Burrow's numbers: 0 NOTFOUND,
--                                                1 OK, 2 WARN, 3 ERR; none while INCOMPLETE
--   kafka_consumergroup_window_complete{group}   its least complete window, 0 to 1
--   kafka_consumergroup_consume_rate{group}      records/s committed over the window (--state)
--   kafka_consumergroup_produce_rate{group}      records/s produced over the window (--state)
--   kafka_consumergroup_lag_ok{group}            1 when the group passes the check, else 0
-- Exit codes: 0 every group passes; 1 bad arguments (or the --state file is held by
--   another run); 3 Kafka unreachable or another Kafka error, or a named group could
--   not be read (its coordinator timed out: retry, as for the whole cluster); 4 at
--   least one group failed: over a limit, ERR or missing (groups that could not be
--   read beside it are named in a WARN line).
-- Example:
--   kadmin-lua -o json run scripts/check-lag.lua orders-processor billing --max 1000
--   kadmin-lua run scripts/check-lag.lua orders-processor --max-seconds 300 --fail-on-loss
--   */5 * * * * kadmin-lua --profile prod --state /var/lib/kadmin-lua/prod.state run check-lag.lua
--   KADMIN_ALERT_URL=http://alertmanager:9093 kadmin-lua --state lag.state run check-lag.lua --max 50000 --alert alertmanager
--   KADMIN_ALERT_URL=http://alertmanager:9093 kadmin-lua --state lag.state run check-lag.lua --max 50000 --alert alertmanager --alert-after 3
--   kadmin-lua run --profiles 'prod-*' --every 1m --metrics-file /var/lib/node_exporter/lag.prom check-lag.lua --max 50000
local args = require("lib.args")

local a = args.parse{usage = "check-lag.lua [GROUP...] [--max N] [--max-seconds S] [--fail-on-loss] [--fail-on-remote] [--min-complete F] [--alert FORMAT] [--alert-after N]",
  flags = {max = "string", ["max-seconds"] = "string", ["fail-on-loss"] = "boolean", ["fail-on-remote"] = "boolean", ["min-complete"] = "string", alert = "string",
    ["alert-after"] = "string"}}
if not a then return end
local max = a.flags.max and args.integer(a.flags.max, "--max", 0)
local max_seconds = a.flags["max-seconds"] and args.integer(a.flags["max-seconds"], "--max-seconds", 0)
local fail_on_loss = a.flags["fail-on-loss"]
local fail_on_remote = a.flags["fail-on-remote"]
local min_complete = 1
if a.flags["min-complete"] then
  min_complete = tonumber(a.flags["min-complete"])
  if not min_complete or min_complete ~= min_complete or min_complete < 0 or min_complete > 1 then
    args.usage_error(string.format("--min-complete must be a number from 0 to 1, got %q", a.flags["min-complete"]))
  end
end
local alert = a.flags.alert
local alert_after = a.flags["alert-after"] and args.integer(a.flags["alert-after"], "--alert-after", 1)
if alert_after and not alert then args.usage_error("--alert-after goes with --alert") end
if alert then
  if alert ~= "alertmanager" and alert ~= "slack" and alert ~= "json" then
    args.usage_error(string.format("--alert must be alertmanager, slack or json, got %q", alert))
  end
  if (kafka.env("KADMIN_ALERT_URL") or "") == "" then
    args.usage_error("--alert needs the webhook's URL in $KADMIN_ALERT_URL")
  end
end
local groups = {}
for i = 1, #a do
  if a[i] == "" then args.usage_error("GROUP must not be empty") end
  groups[i] = a[i]
end

local opts = {partial = #groups > 0 or nil, time = (max_seconds ~= nil or fail_on_remote) or nil, partitions = true, min_complete = min_complete}
local result = lag_status(#groups > 0 and groups or nil, opts)
local status_code = {NOTFOUND = 0, OK = 1, WARN = 2, ERR = 3}

local alerts = {}
local cols = {"group", "state", "status", "total_lag", "max", "max_lag_seconds", "records_lost", "reading_remote", "odd_timestamps", "trend", "complete", "ok", "problem"}
local rows, over, unreadable = {}, {}, {}
local incomplete, least, kept = 0, 1, false -- groups not judged yet, their least complete window, samples kept?
for _, g in ipairs(result) do
  local lag_s = g.max_lag_ms and math.floor(g.max_lag_ms / 1000)
  kept = kept or g.state_file
  -- A verdict that does not speak for some lagging partitions (their window
  -- is not complete yet) is not OK: it is INCOMPLETE until it does.
  local status = g.status
  if status == "OK" and (g.incomplete or 0) > 0 then
    status = "INCOMPLETE"
    incomplete, least = incomplete + 1, math.min(least, g.complete)
  end
  local row = args.record(cols, {group = g.group, state = g.state, status = status, total_lag = g.total_lag, max = max,
    max_lag_seconds = lag_s, records_lost = g.records_lost or 0, reading_remote = opts.time and (g.reading_remote or 0) or nil, odd_timestamps = g.odd_timestamps, trend = g.trend, complete = g.complete, ok = true})
  if max_seconds and (g.odd_timestamps or 0) > 0 then
    kafka.log.warn(string.format("%s: lag in time unknown on %d partition%s: the first unread record's timestamp is negative or in the future (lag(%q, {time = true}) says which); --max-seconds judges the others",
      g.group, g.odd_timestamps, g.odd_timestamps == 1 and "" or "s", g.group))
  end
  if g.error then
    row.ok, row.problem = false, tostring(g.error.code) .. ": " .. tostring(g.error.message)
    row.total_lag = nil
  elseif g.status == "NOTFOUND" then
    row.ok, row.problem = false, "NOTFOUND: the group does not exist"
    row.total_lag = nil
  elseif max and g.total_lag > max then
    row.ok, row.problem = false, string.format("lags %d records (max %d)", g.total_lag, max)
  elseif max_seconds and (g.records_lost or 0) > 0 then
    row.ok, row.problem = false, string.format("lost %d records unread: lags at least %d seconds, how much more is not known (max %d)",
      g.records_lost, lag_s or 0, max_seconds)
  elseif max_seconds and lag_s and lag_s > max_seconds then
    row.ok, row.problem = false, string.format("lags %d seconds (max %d)", lag_s, max_seconds)
  elseif fail_on_loss and (g.records_lost or 0) > 0 then
    row.ok, row.problem = false, string.format("lost %d records: deleted before it read them", g.records_lost)
  elseif fail_on_remote and (g.reading_remote or 0) > 0 then
    row.ok, row.problem = false, string.format("reads from remote storage on %d partition%s: %d unread records are no longer on the brokers' disks",
      g.reading_remote, g.reading_remote == 1 and "" or "s", g.remote_only or 0)
  elseif fail_on_remote and (g.remote_unknown or 0) > 0 then
    row.ok, row.problem = false, string.format("whether it reads from remote storage is not known on %d partition%s (lag(%q, {time = true}) says why in remote_unknown)",
      g.remote_unknown, g.remote_unknown == 1 and "" or "s", g.group)
  elseif g.status == "ERR" then
    row.ok, row.problem = false, "ERR: " .. g.reason
  end
  if g.error then
    -- Not read (a coordinator timing out, an ACL): a Kafka error, not a
    -- failed check, as the same fault over the whole cluster is.
    unreadable[#unreadable + 1] = g
  elseif not row.ok then
    over[#over + 1] = g.group
    kafka.check(false, g.group .. ": " .. row.problem)
  end
  if status ~= "INCOMPLETE" then
    kafka.metric("kafka_consumergroup_status", status_code[g.status] or 3, {group = g.group},
      "The group's verdict (lag_status, Burrow's numbers): 0 NOTFOUND, 1 OK, 2 WARN, 3 ERR; none while its window is incomplete.")
  end
  if not g.error and g.status ~= "NOTFOUND" then
    kafka.metric("kafka_consumergroup_window_complete", g.complete, {group = g.group},
      "How much of --state-window the group's least complete window covers, 0 to 1; Burrow's rules judge it at --min-complete.")
    if g.consume_rate then
      kafka.metric("kafka_consumergroup_consume_rate", g.consume_rate, {group = g.group},
        "Records per second the consumer group committed over the state store's window.")
      kafka.metric("kafka_consumergroup_produce_rate", g.produce_rate, {group = g.group},
        "Records per second produced to the group's partitions over the state store's window.")
    end
    local by_topic = {}
    for _, p in ipairs(g.partitions) do
      if p.lag > 0 then by_topic[p.topic] = (by_topic[p.topic] or 0) + p.lag
      else by_topic[p.topic] = by_topic[p.topic] or 0 end
    end
    for topic, n in pairs(by_topic) do
      kafka.metric("kafka_consumergroup_lag", n, {group = g.group, topic = topic},
        "Records the consumer group is behind the end of the topic, summed over its partitions.")
    end
    kafka.metric("kafka_consumergroup_total_lag", g.total_lag, {group = g.group},
      "Records the consumer group is behind, over all its topics.")
    kafka.metric("kafka_consumergroup_records_lost", g.records_lost or 0, {group = g.group},
      "Records deleted before the consumer group read them (log start minus committed offset).")
    if opts.time and (g.remote_unknown or 0) == 0 then -- not 0 when it is not known
      kafka.metric("kafka_consumergroup_reading_remote_partitions", g.reading_remote or 0, {group = g.group},
        "Partitions the consumer group reads from remote storage (tiered storage): its first unread record is no longer on the brokers' disks.")
    end
    if lag_s then
      kafka.metric("kafka_consumergroup_max_lag_seconds", g.max_lag_ms / 1000, {group = g.group},
        "Age of the oldest record the consumer group has not read, in seconds.")
      -- Not 0 when it is not known: remote_unknown counts, among others,
      -- the lagging partitions of topics whose configs (retention) could
      -- not be read; a tiered topic's unknown local offset leaves it out
      -- too, which says less than it could but never a false 0.
      if (g.remote_unknown or 0) == 0 then
        kafka.metric("kafka_consumergroup_at_risk_partitions", g.at_risk or 0, {group = g.group},
          "Partitions whose lag in time has reached 80% of their topic's retention.ms.")
      end
    end
  end
  kafka.metric("kafka_consumergroup_lag_ok", row.ok and 1 or 0, {group = g.group},
    "1 when the group is within check-lag's limits and its lag could be read, else 0.")
  rows[#rows + 1] = row
  local verdict = (not row.ok and "ERR") or (g.status == "WARN" and "WARN") or "OK"
  -- The labels are the alert's identity, the same from opening to
  -- resolution; severity comes with the verdict (status_labels below), and
  -- kafka.notify resolves the warning itself when it turns critical.
  -- A group whose window is filling (INCOMPLETE within its limits) while a
  -- --state file keeps its samples has a verdict on its way: it is left
  -- out, so an alert open on it stays open (kafka.notify touches only the
  -- alerts it is given) rather than resolving on a guess. Without a state
  -- file the limits are the only verdict there will be: it is sent.
  if not (row.ok and status == "INCOMPLETE" and g.state_file) then
    alerts[#alerts + 1] = {key = "check-lag/" .. g.group, status = verdict,
      labels = {alertname = "KafkaConsumerGroupLag", group = g.group}, annotations = {verdict = g.status},
      summary = row.ok and string.format("%s: %s, %d records behind", g.group, g.status, g.total_lag or 0) or (g.group .. ": " .. row.problem),
      description = g.reason}
  end
end
if alert and #alerts > 0 then
  local r = kafka.notify{url_env = "KADMIN_ALERT_URL", format = alert, alerts = alerts, after_runs = alert_after,
    status_labels = {WARN = {severity = "warning"}, ERR = {severity = "critical"}}}
  local count, parts = {}, {}
  for _, o in ipairs(r.alerts) do count[o.reason] = (count[o.reason] or 0) + 1 end
  for _, why in ipairs{"opened", "resolved", "repeat", "pending", "failed", "unchanged"} do
    if count[why] then parts[#parts + 1] = count[why] .. " " .. why end
  end
  args.say("alerts: %s (%s)", r.reason, table.concat(parts, ", "))
end

local limits = {}
if max then limits[#limits + 1] = max .. " records" end
if max_seconds then limits[#limits + 1] = max_seconds .. " seconds" end
if fail_on_loss then limits[#limits + 1] = "no records lost" end
if fail_on_remote then limits[#limits + 1] = "no reading from remote storage" end
if incomplete > 0 then
  local which = string.format("%d group%s not judged by Burrow's rules", incomplete, incomplete == 1 and "" or "s")
  local nothing = #limits == 0 and "; no limit is given: nothing but a missing group can fail them" or ""
  if kept then
    kafka.log.warn(string.format("%s yet: the least complete window covers %d%% of --state-window (--min-complete %g); the state store (--state) keeps the samples for the next runs%s",
      which, math.floor(100 * least), min_complete, nothing))
  else
    kafka.log.warn(string.format("%s: no --state FILE keeps the samples for the next run (run --every keeps them in memory)%s", which, nothing))
  end
end
local limit = #limits > 0 and table.concat(limits, ", ") or "Burrow's rules"
local pending = incomplete > 0 and string.format(" (%d not judged yet)", incomplete) or ""
if #over == 0 and #unreadable == 0 then
  args.say("%d group%s within %s%s", #rows, #rows == 1 and "" or "s", limit, pending)
elseif #over > 0 then
  args.say("%d of %d groups over %s, ERR, missing or unreadable: %s", #over, #rows, limit, table.concat(over, ", "))
end
if #unreadable > 0 then
  local names = {}
  for i, g in ipairs(unreadable) do names[i] = g.group end
  local first = unreadable[1].error
  local msg = string.format("%d of %d groups could not be read: %s (first: %s: %s)", #unreadable, #rows,
    table.concat(names, ", "), tostring(first.code), tostring(first.message))
  if #over == 0 then
    -- Only Kafka failed: its exit code (3), which a CronJob retries;
    -- with a failed check beside it the run fails the check (4).
    error(setmetatable({code = first.code, message = msg, retriable = first.retriable}, getmetatable(first)), 0)
  end
  kafka.log.warn(msg)
end
return rows
