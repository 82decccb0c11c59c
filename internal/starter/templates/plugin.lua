-- __NAME__.lua: a kadmin-lua plugin (docs/plugins.md): a function, __FUNC__,
-- and a command, `kadmin-lua run __NAME__`.
-- Install: put this file in a plugin directory (--plugin-path DIR,
-- KADMIN_PLUGIN_PATH, or ~/.config/kadmin-lua/plugins).
-- Tests: kadmin-lua test __NAME___test.lua (docs/authoring.md)

-- The topics with fewer than min partitions, smallest first.
local function __FUNC__(min, client)
  min = min or 3
  if type(min) ~= "number" or min < 1 then
    error("__FUNC__: min must be a positive number, got " .. tostring(min), 2)
  end
  local list = client and client:list_topics() or list_topics()
  local out = {}
  for _, t in ipairs(list) do
    if t.partitions < min then out[#out + 1] = {topic = t.name, partitions = t.partitions} end
  end
  table.sort(out, function(x, y)
    if x.partitions ~= y.partitions then return x.partitions < y.partitions end
    return x.topic < y.topic
  end)
  return out
end

return {
  version = "0.1.0",
  description = "TODO say in one line what this plugin adds.",
  functions = {
    __FUNC__ = {
      summary = "Topics with fewer than min partitions (default 3), smallest first.",
      args = "([min[, client]])",
      returns = "{{topic=, partitions=}...}",
      example = [[return __FUNC__(1)]],
      fn = __FUNC__,
    },
  },
  commands = {
    ["__NAME__"] = {
      summary = "List the topics with fewer than --min partitions; exit 4 when there are any.",
      usage = "[--min N]",
      run = function(...)
        local argv = {...}
        local min = 3
        if argv[1] == "--min" then min = tonumber(argv[2]) end
        if not min then kafka.fail("--min takes a number (usage: kadmin-lua run __NAME__ [--min N])") end
        local small = __FUNC__(min)
        kafka.check(#small == 0, string.format("%d topics have fewer than %d partitions", #small, min))
        return small
      end,
    },
  },
}
