-- Tests of diff-clusters.lua (kadmin-lua test scripts/tests). A test has one
-- cluster: the same cluster reached by two spellings of its seeds matches.
fixture{
  topics = {{name = "orders", partitions = 3, configs = {["retention.ms"] = 1000}}},
  acls = {{principal = "User:app", operation = "read", resource_type = "topic", resource_name = "orders"}},
}

local function brokers(host)
  local out = {}
  for _, b in ipairs(cluster().brokers) do out[#out + 1] = (b:gsub("^[^:]+", host)) end
  return table.concat(out, ",")
end

test("a cluster matches itself", function()
  local r = run("diff-clusters", brokers("127.0.0.1"), brokers("localhost"))
  expect(r.exit):is(0)
  expect(r.rows):equals{}
end)

test("the same seeds twice are refused", function()
  local r = run("diff-clusters", brokers("127.0.0.1"), brokers("127.0.0.1"))
  expect(r.exit):is(1)
  expect(r.error):matches("A and B are the same cluster")
end)

test("it needs two clusters", function()
  expect(run("diff-clusters", brokers("127.0.0.1")).exit):is(1)
end)
