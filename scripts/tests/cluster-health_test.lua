-- Tests of cluster-health.lua (kadmin-lua test scripts/tests).
fixture{
  brokers = {{id = 1, rack = "a"}, {id = 2, rack = "b"}, {id = 3, rack = "c"}},
  topics = {
    {name = "orders", replicas = {{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}, configs = {["min.insync.replicas"] = 2}},
    {name = "logs", replicas = {{1}, {2}}},
  },
}

test("a healthy cluster passes", function()
  local r = run("cluster-health", "--brokers", "3")
  expect(r.exit):is(0)
  expect(r.rows[1].brokers):is(3)
  expect(r.rows[1].partitions):is(5)
end)

test("fewer live brokers than asked fails", function()
  expect(run("cluster-health", "--brokers", "4").exit):is(4)
end)

test("a broker down: its partitions under-replicated, those only on it offline", function()
  broker_down(1)
  local r = run("cluster-health")
  expect(r.exit):is(4)
  expect(r.rows[1].under_replicated):is(3)
  expect(r.rows[1].offline):is(1)
  expect(r.checks):contains("1 partition without a leader: logs[0]")
end)

test("bad arguments exit 1", function()
  expect(run("cluster-health", "--brokers", "many").exit):is(1)
end)
