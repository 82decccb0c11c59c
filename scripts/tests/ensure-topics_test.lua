-- Tests of ensure-topics.lua (kadmin-lua test scripts/tests), with the spec
-- in topics.json beside this file.
local spec = (arg[0]:match("^(.*/)") or "") .. "topics.json"

fixture{
  topics = {{name = "orders", partitions = 3, replication_factor = 3, configs = {["retention.ms"] = 1000}}},
}

local function by_name(rows)
  local out = {}
  for _, r in ipairs(rows) do out[r.name or r.topic] = r end
  return out
end

test("creates what is missing and converges the rest", function()
  local r = run("ensure-topics", spec)
  expect(r.exit):is(0)
  local rows = by_name(r.rows)
  expect(rows.events.status):is("create")
  expect(rows.orders.status):is("update")
  expect(#describe_topics("orders")[1].partitions):is(6)
  expect(describe_configs{{topic = "orders"}}[1].configs["retention.ms"].value):is("86400000")
  expect(describe_configs{{topic = "events"}}[1].configs["cleanup.policy"].value):is("compact")
end)

test("the second run has nothing to do", function()
  run("ensure-topics", spec)
  local r = run("ensure-topics", spec)
  expect(r.exit):is(0)
  expect(r.changes):has_length(0)
end)

test("its dry run announces exactly what it does", function()
  assert.dry_run_matches("ensure-topics", spec)
end)

test("a file that does not exist is refused", function()
  expect(run("ensure-topics", "no-such-file.json").exit):is(1)
end)
