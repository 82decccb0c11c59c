-- Tests of drain-broker.lua (kadmin-lua test scripts/tests). The in-process
-- cluster accepts reassignments but copies no data: these test the plans,
-- the dry run and the refusals; integration/four runs the drain on Kafka.
fixture{
  brokers = 4,
  topics = {{name = "orders", partitions = 8, replication_factor = 2}},
}

local function held(broker)
  local n = 0
  for _, p in ipairs(describe_topics("orders")[1].partitions) do
    for _, r in ipairs(p.replicas) do if r == broker then n = n + 1 end end
  end
  return n
end

test("its dry run plans the broker empty and changes nothing", function()
  local before = held(3)
  local r = run("drain-broker", "3", "--max-moves-per-broker", "2", {dry_run = true})
  expect(r.exit):is(0)
  expect(r.rows[1].broker):is(3)
  expect(r.rows[1].replicas):is(0)
  expect(r.rows[1].leaders):is(0)
  expect(r.rows[1].replicas_before):is(before)
  expect(r.stderr):matches("step 2, replicas: %d+ partition%(s%) in %d+ batch%(es%)")
  expect(held(3)):is(before)
end)

test("a demote plans leadership only", function()
  local r = run("drain-broker", "3", "--demote-only", {dry_run = true})
  expect(r.exit):is(0)
  expect(r.rows[1].leaders):is(0)
  expect(r.rows[1].replicas):is(r.rows[1].replicas_before)
  expect(r.stderr):matches("step 1, leadership")
end)

test("an unknown broker is refused", function()
  local r = run("drain-broker", "7")
  expect(r.exit):is(1)
  expect(r.error):matches("broker 7 is not in the cluster")
end)

test("draining every broker is refused", function()
  local r = run("drain-broker", "0", "1", "2", "3")
  expect(r.exit):is(1)
  expect(r.error):matches("leaves no broker for their replicas")
end)

test("bad flags exit 1", function()
  expect(run("drain-broker", "1", "--throttle", "fast").exit):is(1)
  expect(run("drain-broker", "1", "--demote-only", "--unregister").exit):is(1)
  expect(run("drain-broker").exit):is(1)
end)
