package luaapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
)

// A plugin's top-level code that tries to replace a built-in fails to
// load, naming the plugin and the built-in; nothing of it is installed.
func TestPluginCannotReplaceBuiltins(t *testing.T) {
	for name, tc := range map[string]struct{ src, what string }{
		"assignment":      {`list_topics = function() return {} end`, "list_topics"},
		"wrapping":        {`local orig = create_topics; create_topics = function(...) return orig(...) end`, "create_topics"},
		"alias":           {`describe_consumer_groups = print`, "describe_consumer_groups"},
		"help":            {`help = print`, "help"},
		"kafka table":     {`kafka = {}`, "kafka"},
		"via _G":          {`_G.delete_topics = print`, "delete_topics"},
		"via _G string":   {`_G["delete_topics"] = print`, "delete_topics"},
		"rawset _G":       {`rawset(_G, "create_topics", print)`, "create_topics"},
		"kafka field":     {`kafka.dry_run = function() return false end`, "kafka.dry_run"},
		"kafka new field": {`kafka.extra = 1`, "kafka.extra"},
		"kafka.json":      {`kafka.json.encode = function() return "{}" end`, "kafka.json.encode"},
		"kafka.log":       {`kafka.log.info = print`, "kafka.log.info"},
		"rawset kafka":    {`rawset(kafka, "dry_run", print)`, "kafka.dry_run"},
		"rawset json":     {`rawset(kafka.json, "encode", print)`, "kafka.json.encode"},
		"default method":  {`kafka.default.create_topics = print`, "client.create_topics"},
		"loaded kafka":    {`package.loaded.kafka = {}`, "package.loaded.kafka"},
		"rawset loaded":   {`rawset(package.loaded, "kafka", {})`, "package.loaded.kafka"},
		"base function":   {`pcall = function() return true end`, "pcall"},
		"module":          {`module("create_topics")`, "create_topics"},
		"required helper": {`require("_helper")`, "list_topics"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := testfiles.Tree(t, map[string]string{
				"evil.lua":    tc.src + "\nreturn {functions = {evil_fn = function() return 1 end}}",
				"_helper.lua": `list_topics = print`,
			})
			e, err := newPluginEnv(t, dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `plugin "evil": cannot replace built-in `+tc.what)
			var pe *PluginError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "evil", pe.Plugin)
			assert.Empty(t, e.rt.Plugins(), "nothing of the plugin is installed")
			// The built-ins are the tool's, untouched.
			assert.Equal(t, lua.LTrue, e.run(`return kafka.dry_run() == false and type(list_topics) == "function"
				and kafka.json.encode({1}) == "[1]" and require("kafka") == kafka and help ~= print and pcall ~= nil`))
			_, isFn := e.rt.funcOf[e.run(`return create_topics`).(*lua.LFunction)]
			assert.True(t, isFn, "create_topics is the admin function")
		})
	}
}

// The metatables of _G, kafka and client objects are protected, and
// getmetatable does not hand them out.
func TestPluginCannotReachBuiltinsThroughMetatables(t *testing.T) {
	for name, src := range map[string]string{
		"setmetatable _G":       `setmetatable(_G, nil)`,
		"setmetatable kafka":    `setmetatable(kafka, nil)`,
		"setmetatable json":     `setmetatable(kafka.json, {})`,
		"setmetatable client":   `setmetatable(kafka.default, {})`,
		"setfenv thread":        `setfenv(0, setmetatable({create_topics = print}, {__index = _G}))`,
		"setfenv caller":        `setfenv(2, {})`,
		"setfenv other chunk":   `setfenv(loadstring("return create_topics"), {})`,
		"rawget then rawset _G": `rawset(_G, "list_topics", rawget(_G, "print"))`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := testfiles.Tree(t, map[string]string{"evil.lua": src + "\nreturn {functions = {evil_fn = print}}"})
			e, err := newPluginEnv(t, dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "plugin evil:")
			assert.Equal(t, lua.LTrue, e.run(`return kafka.dry_run() == false and type(create_topics) == "function"
				and getmetatable(_G) == getmetatable(kafka) and type(getmetatable(_G)) == "string"`))
			_, isFn := e.rt.funcOf[e.run(`return list_topics`).(*lua.LFunction)]
			assert.True(t, isFn)
		})
	}
}

// getmetatable gives the protected tables' __metatable string, not the
// metatable whose __index holds the built-ins.
func TestGetmetatableHidesBuiltins(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"peek.lua": `
for _, v in ipairs({_G, kafka, kafka.json, kafka.default, package.loaded}) do
  local mt = getmetatable(v)
  assert(type(mt) == "string", "metatable handed out")
end
return {functions = {peek_fn = print}}`})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)
	assert.Len(t, e.rt.Plugins(), 1)
	// Results and other tables keep their metatables readable.
	assert.Equal(t, lua.LTrue, e.run(`return type(getmetatable(setmetatable({}, {__index = {}}))) == "table"`))
}

// A plugin function that tries it later, when a script calls it, is
// refused the same way, naming the plugin.
func TestPluginFunctionCannotReplaceBuiltinWhenCalled(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"later.lua": `return {functions = {
		sneak = function() kafka.dry_run = function() return false end end}}`})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)
	re := e.runErr(`sneak()`)
	assert.Contains(t, re.Message, `plugin "later": cannot replace built-in kafka.dry_run`)
	assert.Equal(t, lua.LFalse, e.run(`kafka.dry_run(true) return kafka.dry_run() == false`), "dry_run is the tool's")
}

// Ordinary plugins keep working: their functions are globals, they may
// set globals of their own, use locals named like built-ins, wrap
// built-ins in their own functions, and sandbox their own chunks.
func TestPluginsStillWork(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"good.lua": `
plugin_loaded_at = kafka.now()          -- a global of its own
local create_topics = create_topics     -- a local named like a built-in
local function mk(n) return create_topics({{name = n, partitions = 2}}) end
local env = setmetatable({}, {__index = _G})
local f = setfenv(function() x = 1 end, env) -- a function of its own chunk
f()
assert(env.x == 1 and rawget(_G, "x") == nil)
local n = 0
for k in pairs(kafka) do n = n + 1 end
assert(n > 5, "pairs(kafka) lists the library")
assert(rawget(_G, "list_topics") == list_topics)
return {functions = {make_topic = mk}}`})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)
	e.run(`make_topic("guarded")`)
	require.Contains(t, e.topics(), "guarded")
	assert.Equal(t, int32(2), int32(len(e.topics()["guarded"].Partitions)))
	assert.Equal(t, lua.LTrue, e.run(`return type(plugin_loaded_at) == "number"`))
	// The plugin's function is a global a script may call, and the
	// plugin's own global may be reassigned.
	assert.Equal(t, lua.LTrue, e.run(`plugin_loaded_at = 1 return plugin_loaded_at == 1`))
}

// The user's script cannot replace a built-in either; its own globals,
// locals and client objects' own fields work as before, and the runtime's
// Go code can still install globals.
func TestScriptCannotReplaceBuiltins(t *testing.T) {
	e := newEnv(t)
	re := e.runErr(`create_topics = nil`)
	assert.Contains(t, re.Message, "cannot replace built-in create_topics (use a local of your own: local create_topics = ...)")
	re = e.runErr(`kafka.json.encode = nil`)
	assert.Contains(t, re.Message, "cannot replace built-in kafka.json.encode")
	assert.NotContains(t, re.Message, "plugin")

	assert.Equal(t, lua.LTrue, e.run(`
		local create_topics = function() return "mine" end
		assert(create_topics() == "mine")
		my_global = 1; my_global = my_global + 1; my_global = nil
		assert(my_global == nil)
		counter = 0
		for i = 1, 3 do counter = counter + 1 end
		local c = kafka.connect{}
		c.note = "fine"
		assert(c.note == "fine")
		assert(not pcall(function() c.delete_topics = print end))
		return counter == 3 and type(create_topics) == "function"`))

	// A misspelt built-in is still suggested.
	re = e.runErr(`list_topic()`)
	assert.Contains(t, re.Message, "did you mean 'list_topics'?")

	// Go code (tests, the runtime) may set a global of any name.
	e.rt.L.SetGlobal("help", lua.LString("stub"))
	assert.Equal(t, lua.LString("stub"), e.run(`return help`))
	_, err := e.rt.DoString(context.Background(), "x", `return 1`)
	require.NoError(t, err)
}

// A plugin file named kafka.lua would replace require("kafka").
func TestPluginCannotBeNamedLikeABuiltinModule(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"kafka.lua": `return {functions = {fake = print}}`})
	e, err := newPluginEnv(t, dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot be named like the built-in module kafka")
	assert.Equal(t, lua.LTrue, e.run(`return require("kafka") == kafka and type(kafka.connect) == "function"`))
}

// The globals table the built-ins moved out of is never reachable: _G,
// getfenv and package.loaded all give the one _G.
func TestGlobalsTableIsOne(t *testing.T) {
	e := newEnv(t)
	assert.Equal(t, lua.LTrue, e.run(`
		local f = loadstring("return 1")
		return _G._G == _G and package.loaded._G == _G and getfenv(0) == _G and getfenv(1) == _G
			and getfenv(print) == _G and getfenv(f) == _G and getfenv(create_topics) == _G
			and coroutine.wrap(function() return getfenv(0) == _G and getfenv(1) == _G end)()`))
	re := e.runErr(`getfenv(print).create_topics = print`)
	assert.Contains(t, re.Message, "cannot replace built-in create_topics")
}
