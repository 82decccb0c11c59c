-- The tests of __NAME__.lua: kadmin-lua test __NAME___test.lua
-- Each test runs on a fresh in-process cluster built from this fixture (a
-- snapshot works too: kadmin-lua snapshot -o prod.json, then fixture("prod.json")).
fixture{
  brokers = 3,
  topics = {
    {name = "orders", partitions = 3, replication_factor = 3, configs = {["retention.ms"] = 86400000}},
  },
}

test("raises the partition count", function()
  local r = run("__NAME__", "orders", "--partitions", "6")
  expect(r.exit):is(0)
  expect(r.rows[1]):equals{topic = "orders", before = 3, after = 6, changed = true, dry_run = false}
  -- What the cluster says, not only what the runbook returned.
  expect(#describe_topics("orders")[1].partitions):is(6)
  expect(r.changes[1].op):is("create_partitions")
end)

test("has nothing to do the second time", function()
  run("__NAME__", "orders", "--partitions", "6")
  local r = run("__NAME__", "orders", "--partitions", "6")
  expect(r.rows[1].changed):is(false)
  expect(r.changes):has_length(0)
end)

test("its dry run announces what it does", function()
  local dry, real = assert.dry_run_matches("__NAME__", "orders", "--partitions", "6")
  expect(dry.rows[1].dry_run):is(true)
  expect(real.rows[1].after):is(6)
end)

test("refuses bad arguments and changes nothing", function()
  local r = run("__NAME__", "orders", "--partitions", "x")
  expect(r.exit):is(1)
  expect(r.error):matches("%-%-partitions must be")
  expect(#describe_topics("orders")[1].partitions):is(3)
end)

test("a topic that does not exist is a Kafka error", function()
  expect(run("__NAME__", "nope").exit):is(3)
end)

test("retries when the controller moves", function()
  local f = fault{api = "CreatePartitions", error = "NOT_CONTROLLER", times = 1}
  expect(run("__NAME__", "orders", "--partitions", "4").exit):is(0)
  expect(f.hits()):is(1)
end)
