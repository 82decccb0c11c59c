-- Tests of reset-offsets.lua (kadmin-lua test scripts/tests).
fixture{
  topics = {{name = "payments", partitions = 2, records = 20}},
  groups = {
    {name = "billing", offsets = {payments = {8, 9}}},
    {name = "live", offsets = {payments = {1, 1}}, members = {{client_id = "svc", topics = {"payments"}}}},
  },
}

local function committed(group)
  local out = {}
  for _, o in ipairs(fetch_offsets(group)) do out[o.partition + 1] = o.offset end
  return out
end

test("resets to the earliest offsets", function()
  expect(run("reset-offsets", "billing", "earliest").exit):is(0)
  expect(committed("billing")):equals{0, 0}
end)

test("shifts one partition only", function()
  expect(run("reset-offsets", "billing", "shift:-3", "payments:1").exit):is(0)
  expect(committed("billing")):equals{8, 6}
end)

test("its dry run announces exactly what it does", function()
  assert.dry_run_matches("reset-offsets", "billing", "latest")
  expect(committed("billing")):equals{10, 10}
end)

test("a group with live members is refused and keeps its offsets", function()
  local r = run("reset-offsets", "live", "earliest")
  expect(r.exit):is(3)
  expect(r.error):matches("NON_EMPTY_GROUP")
  expect(committed("live")):equals{1, 1}
end)

test("a bad target is refused", function()
  expect(run("reset-offsets", "billing", "yesterday").exit):is(1)
end)
