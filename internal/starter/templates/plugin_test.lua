-- The tests of the __NAME__ plugin: kadmin-lua test __NAME___test.lua
-- require finds the plugin beside this file; its functions and commands are
-- called as kadmin-lua calls them. (With kadmin-lua --plugin-path DIR test,
-- the plugin is loaded as well: run("__NAME__") runs its command.)
local plugin = require("__NAME__")

fixture{
  topics = {
    {name = "orders", partitions = 6},
    {name = "scratch", partitions = 1},
    {name = "audit", partitions = 2},
  },
}

test("lists the small topics, smallest first", function()
  local small = plugin.functions.__FUNC__.fn(3)
  expect(small):equals{{topic = "scratch", partitions = 1}, {topic = "audit", partitions = 2}}
end)

test("refuses a bad min", function()
  expect(function() plugin.functions.__FUNC__.fn(0) end):fails("min must be a positive number")
end)

test("its command passes its check when no topic is small", function()
  -- A kafka.check that fails in a test fails the test: --min 1 finds none.
  expect(plugin.commands["__NAME__"].run("--min", "1")):has_length(0)
end)

test("its command refuses a bad --min", function()
  expect(function() plugin.commands["__NAME__"].run("--min", "x") end):fails("%-%-min takes a number")
end)
