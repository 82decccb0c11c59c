-- Tests of add-partitions.lua (kadmin-lua test scripts/tests).
fixture{
  brokers = 3,
  topics = {{name = "orders", partitions = 6, replication_factor = 3}},
}

test("raises the count and says what it did", function()
  local r = run("add-partitions", "orders", "12")
  expect(r.exit):is(0)
  expect(r.rows[1]):equals{topic = "orders", before = 6, after = 12, changed = true, dry_run = false}
  expect(#describe_topics("orders")[1].partitions):is(12)
  expect(r.stderr):matches("orders: 6 %-> 12 partitions")
end)

test("the count reached is nothing to do", function()
  local r = run("add-partitions", "orders", "6")
  expect(r.rows[1].changed):is(false)
  expect(r.changes):has_length(0)
end)

test("its dry run announces exactly what it does", function()
  local dry = assert.dry_run_matches("add-partitions", "orders", "9")
  expect(dry.rows[1].dry_run):is(true)
  expect(#describe_topics("orders")[1].partitions):is(9)
end)

test("a lower count is refused and changes nothing", function()
  local r = run("add-partitions", "orders", "3")
  expect(r.exit):is(1)
  expect(r.error):matches("Kafka cannot lower a partition count")
  expect(#describe_topics("orders")[1].partitions):is(6)
end)

test("bad arguments exit 1", function()
  expect(run("add-partitions", "orders").exit):is(1)
  expect(run("add-partitions", "orders", "x").error):matches("COUNT must be a positive integer")
end)

test("a topic that does not exist is a Kafka error", function()
  expect(run("add-partitions", "nope", "3").exit):is(3)
end)

test("a controller moving mid-call is retried", function()
  local f = fault{api = "CreatePartitions", error = "NOT_CONTROLLER", times = 2}
  expect(run("add-partitions", "orders", "8").exit):is(0)
  expect(f.hits()):is(2)
  expect(#describe_topics("orders")[1].partitions):is(8)
end)
