-- Tests of check-lag.lua (kadmin-lua test scripts/tests).
fixture{
  topics = {{name = "orders", partitions = 3, records = 300}, {name = "payments", partitions = 1, records = 10}},
  groups = {
    {name = "billing", lag = {orders = {5, 0, 20}}},
    {name = "audit", lag = {payments = {0}}},
  },
}

local function by_group(rows)
  local out = {}
  for _, r in ipairs(rows) do out[r.group] = r end
  return out
end

test("a group over --max fails its check", function()
  local r = run("check-lag", "--max", "10")
  expect(r.exit):is(4)
  local rows = by_group(r.rows)
  expect(rows.billing.total_lag):is(25)
  expect(rows.billing.ok):is(false)
  expect(rows.audit.ok):is(true)
  expect(r.checks):has_length(1)
end)

test("every group under the limit passes", function()
  local r = run("check-lag", "billing", "audit", "--max", "100")
  expect(r.exit):is(0)
  expect(#r.rows):is(2)
end)

test("a named group that does not exist fails", function()
  local r = run("check-lag", "nope", "--max", "100")
  expect(r.exit):is(4)
end)

test("it changes nothing", function()
  local before = snapshot()
  run("check-lag", "--max", "10")
  expect(changes(before, snapshot())):has_length(0)
  expect(audit()):has_length(0)
end)

test("a bad limit is refused", function()
  expect(run("check-lag", "--max", "lots").exit):is(1)
end)
