-- Tests of rebalance.lua (kadmin-lua test scripts/tests). The in-process
-- cluster copies no data: integration/four runs the moves on Kafka.
fixture{
  brokers = 3,
  topics = {{name = "orders", partitions = 6, replication_factor = 3}},
}

test("a balanced topic is nothing to do", function()
  local r = run("rebalance", "orders")
  expect(r.exit):is(0)
  expect(r.stderr):matches("already balanced: nothing to move")
  expect(#r.rows):is(3)
  expect(r.changes):has_length(0)
end)

test("a topic that does not exist is a Kafka error", function()
  expect(run("rebalance", "nope").exit):is(3)
end)

test("bad arguments exit 1", function()
  expect(run("rebalance").exit):is(1)
  expect(run("rebalance", "orders", "--by", "disk").error):matches("%-%-by must be count or bytes")
  expect(run("rebalance", "orders", "--broker", "x").exit):is(1)
end)
