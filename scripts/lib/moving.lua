-- lib/moving.lua: what the runbooks that move data share (drain-broker, rebalance,
-- set-replication-factor): the caps and the throttle as flags, --resume, the counts of
-- replicas and leaders per broker, and the summary of a run.
--
--   local moving = require("lib.moving")
--   local a = args.parse{usage = "x.lua TOPIC " .. moving.usage, flags = moving.flags{force = "boolean"}}
--   local o = moving.options(a)       -- reassign's options from the flags
--   moving.finish_interrupted(o)      -- with --resume: the interrupted run first
--   local rows = moving.run("step", plan.partitions, o)
local args = require("lib.args")

local M = {}

M.usage = "[--max-moves-per-broker N] [--max-moves N] [--throttle BYTES] [--resume]"

-- flags returns the flags every moving runbook takes, with extra ones.
function M.flags(extra)
  local f = {["max-moves-per-broker"] = "string", ["max-moves"] = "string", throttle = "string", resume = "boolean"}
  for k, v in pairs(extra or {}) do f[k] = v end
  return f
end

local units = {[""] = 1, b = 1, kb = 1000, mb = 1000 ^ 2, gb = 1000 ^ 3, kib = 1024, mib = 1024 ^ 2, gib = 1024 ^ 3}

-- bytes reads a rate such as 52428800, 50MiB or 50MB (per second), or stops
-- with a usage error naming what.
function M.bytes(s, what)
  local n, unit = tostring(s):match("^(%d+%.?%d*)%s*(%a*)$")
  local scale = unit and units[unit:lower()]
  local v = n and scale and math.floor(tonumber(n) * scale)
  if not v or v < 1 or v >= 2 ^ 53 then
    args.usage_error(string.format("%s must be bytes per second: a positive number, optionally with KB, MB, GB, KiB, MiB or GiB, got %q", what, tostring(s)))
  end
  return v
end

-- options turns the flags into reassign's options.
function M.options(a)
  local o = {}
  if a.flags["max-moves-per-broker"] then
    o.max_moves_per_broker = args.integer(a.flags["max-moves-per-broker"], "--max-moves-per-broker", 1)
  end
  if a.flags["max-moves"] then o.max_moves = args.integer(a.flags["max-moves"], "--max-moves", 1) end
  if a.flags.throttle then o.throttle = M.bytes(a.flags.throttle, "--throttle") end
  o.resume = a.flags.resume or nil
  return o
end

local function without_resume(o)
  local c = {}
  for k, v in pairs(o) do if k ~= "resume" then c[k] = v end end
  return c
end

-- finish_interrupted: with --resume, first finishes the newest run the audit log holds
-- unfinished (Ctrl-C, kill -9, a lost connection), its own plan under its caps unless given
-- again, so that the plan made next starts from where the cluster really is. Returns its
-- rows (none when nothing was unfinished).
function M.finish_interrupted(o)
  if not o.resume then return {} end
  if args.dry_run() then
    -- A dry run opens no audit log to resume from: it plans from the cluster as it is.
    args.say("--resume: the interrupted run is not resumed under --dry-run; the plan below starts from the cluster as it is")
    return {}
  end
  args.say("--resume: finishing the run the audit log holds unfinished, if any")
  return reassign(nil, o)
end

-- count sums the result rows of reassign by state.
function M.count(rows)
  local c = {done = 0, moving = 0, queued = 0, failed = 0, bytes = 0, batches = 0}
  for _, r in ipairs(rows) do
    c[r.state] = (c[r.state] or 0) + 1
    c.bytes = c.bytes + math.max(r.bytes or 0, 0)
    c.batches = math.max(c.batches, r.batch or 0)
  end
  return c
end

-- run moves rows (a plan's partitions or leadership rows) with reassign, as a new run,
-- and says what it did (under --dry-run: the batches and the bytes).
function M.run(step, rows, o)
  if #rows == 0 then return {} end
  local res = reassign(rows, without_resume(o))
  local c = M.count(res)
  if args.dry_run() then
    args.say("%s: %d partition(s) in %d batch(es), %s to copy", step, #res, c.batches, M.human(c.bytes))
  else
    args.say("%s: %d partition(s) moved, %s copied", step, c.done, M.human(c.bytes))
  end
  return res
end

-- human writes bytes as KiB, MiB, GiB.
function M.human(n)
  local u, v = "B", n
  for _, unit in ipairs{"KiB", "MiB", "GiB", "TiB"} do
    if v < 1024 then break end
    v, u = v / 1024, unit
  end
  return u == "B" and string.format("%d B", n) or string.format("%.1f %s", v, u)
end

-- per_broker counts the replicas and leaders each broker holds (from the metadata).
function M.per_broker()
  local out = {}
  for _, b in ipairs(skew().brokers) do out[b.broker] = {replicas = b.partitions, leaders = b.leaders} end
  return out
end

-- per_broker_after is what a plan leaves on each broker (its brokers report), or, without
-- a plan, per_broker.
function M.per_broker_after(plan)
  if not plan then return M.per_broker() end
  local out = {}
  for _, b in ipairs(plan.brokers or {}) do out[b.broker] = {replicas = b.replicas_after, leaders = b.leaders_after} end
  return out
end

return M
