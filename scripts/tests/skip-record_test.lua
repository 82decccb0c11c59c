-- Tests of skip-record.lua (kadmin-lua test scripts/tests).
fixture{
  topics = {{name = "payments", partitions = 1, records = {
    {partition = 0, key = "p-1", value = "ok"},
    {partition = 0, key = "p-2", value = "poison"},
    {partition = 0, key = "p-3", value = "ok"},
  }}},
  groups = {{name = "billing", offsets = {payments = {1}}}},
}

test("skips the record the group is stuck on, and shows it without its value", function()
  local r = run("skip-record", "billing", "payments", "0")
  expect(r.exit):is(0)
  expect(r.rows[1].key):is("p-2")
  expect(r.rows[1].target):is(2)
  expect(r.stdout .. r.stderr).never:matches("poison")
  expect(fetch_offsets("billing")[1].offset):is(2)
end)

test("--count skips more", function()
  run("skip-record", "billing", "payments", "0", "--count", "2")
  expect(fetch_offsets("billing")[1].offset):is(3)
end)

test("its dry run announces exactly what it does", function()
  assert.dry_run_matches("skip-record", "billing", "payments", "0")
end)

test("a partition without a commit is refused", function()
  expect(run("skip-record", "nobody", "payments", "0").exit):is(1)
end)
