-- Tests of set-replication-factor.lua (kadmin-lua test scripts/tests). The
-- in-process cluster copies no data: integration/four raises and lowers a
-- replication factor on Kafka.
fixture{
  brokers = 3,
  topics = {
    {name = "orders", partitions = 3, replication_factor = 3, configs = {["min.insync.replicas"] = "2"}},
    {name = "logs", partitions = 2, replication_factor = 1},
  },
}

test("its dry run plans every partition and changes nothing", function()
  local r = run("set-replication-factor", "logs", "3", {dry_run = true})
  expect(r.exit):is(0)
  expect(#r.rows):is(2)
  for _, row in ipairs(r.rows) do
    expect(#row.replicas):is(3)
    expect(row.replicas[1]):is(row.replicas_before[1])
  end
  for _, p in ipairs(describe_topics("logs")[1].partitions) do expect(#p.replicas):is(1) end
end)

test("the factor it has is nothing to do", function()
  local r = run("set-replication-factor", "orders", "3")
  expect(r.exit):is(0)
  expect(r.stderr):matches("nothing to do")
end)

test("below min.insync.replicas is refused without --force", function()
  local r = run("set-replication-factor", "orders", "1")
  expect(r.exit):is(1)
  expect(r.error):matches("min.insync.replicas is 2")
  expect(run("set-replication-factor", "orders", "1", "--force", {dry_run = true}).exit):is(0)
end)

test("more replicas than brokers is refused", function()
  local r = run("set-replication-factor", "orders", "4")
  expect(r.exit):is(1)
  expect(r.error):matches("needs 4 brokers; the cluster has 3")
end)

test("bad arguments exit 1", function()
  expect(run("set-replication-factor", "orders").exit):is(1)
  expect(run("set-replication-factor", "orders", "0").exit):is(1)
end)
