-- Tests of copy-group-offsets.lua (kadmin-lua test scripts/tests).
fixture{
  topics = {{name = "payments", partitions = 2, records = 40}, {name = "orders", partitions = 1, records = 5}},
  groups = {
    {name = "billing", offsets = {payments = {7, 15}, orders = {2}}},
    {name = "billing-v2", offsets = {orders = {5}}},
  },
}

local function committed(group)
  local out = {}
  for _, o in ipairs(fetch_offsets(group)) do out[o.topic .. "[" .. o.partition .. "]"] = o.offset end
  return out
end

test("copies one topic's offsets and keeps the others", function()
  local r = run("copy-group-offsets", "billing", "billing-v2", "payments")
  expect(r.exit):is(0)
  expect(committed("billing-v2")):equals{["payments[0]"] = 7, ["payments[1]"] = 15, ["orders[0]"] = 5}
end)

test("copies every topic into a new group", function()
  run("copy-group-offsets", "billing", "billing-new")
  expect(committed("billing-new")):equals(committed("billing"))
end)

test("its dry run announces exactly what it does", function()
  assert.dry_run_matches("copy-group-offsets", "billing", "billing-v3")
end)

test("a group with nothing committed changes nothing", function()
  local r = run("copy-group-offsets", "nobody", "billing-v2")
  expect(r.exit):is(1)
  expect(r.error):matches("has no committed offsets")
  expect(committed("billing-v2")):equals{["orders[0]"] = 5}
end)

test("the same group twice is refused", function()
  expect(run("copy-group-offsets", "billing", "billing").exit):is(1)
end)
