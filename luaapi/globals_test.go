package luaapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

func TestSuggest(t *testing.T) {
	names := []string{"lag", "list_topics", "list_groups", "describe_topics", "describe_groups",
		"create_topics", "validate_only", "if_not_exists", "kafka", "print", "pairs"}
	for name, want := range map[string]string{
		"lagg":          "lag",
		"lga":           "lag", // a swap is one edit
		"list_topic":    "list_topics",
		"lsit_topics":   "list_topics",
		"List_Topics":   "list_topics",
		"describe_t":    "describe_topics", // a prefix
		"describe_grp":  "",                // three edits, and not a prefix
		"valdiate_only": "validate_only",
		"validateonly":  "validate_only",
		"if_not_exist":  "if_not_exists",
		"kafak":         "kafka",
		"prnt":          "print",
		"x":             "",
		"ab":            "", // short names allow one edit only
		"lg":            "lag",
		"topics":        "",
		"create_topics": "", // itself is not a suggestion
		"delete_topics": "",
		"":              "",
	} {
		assert.Equal(t, want, suggest(name, names), name)
	}
	// Ties go to the shorter, then the alphabetically first name, whatever
	// the order of the candidates.
	assert.Equal(t, "abcd", suggest("abc_", []string{"abc_d_e", "abcd", "ab"}), "one edit beats two")
	assert.Equal(t, "abc_d", suggest("abc_", []string{"abc_de", "abc_d"}), "a prefix: the shorter")
	assert.Equal(t, "abd", suggest("abc", []string{"abe", "abd"}))
	assert.Equal(t, "abd", suggest("abc", []string{"abd", "abe"}))
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1},
		{"lag", "lagg", 1}, {"ca", "abc", 3}, {"héllo", "hello", 1},
	} {
		d, ok := editDistance(tc.a, tc.b, 10)
		assert.True(t, ok, tc)
		assert.Equal(t, tc.d, d, tc)
	}
	_, ok := editDistance("kitten", "sitting", 2)
	assert.False(t, ok)
}

// Calling an undefined global names it and the name it most likely
// misspells; reading one is nil (issue 34, item 6).
func TestCallingAnUndefinedGlobalSuggestsAName(t *testing.T) {
	e := newBareEnv(t, Options{})
	for src, want := range map[string]string{
		`lagg()`:                             "test:1: attempt to call nil 'lagg': did you mean 'lag'?",
		`return list_topic()`:                "test:1: attempt to call nil 'list_topic': did you mean 'list_topics'?",
		"local x = 1\nkafak()":               "test:2: attempt to call nil 'kafak': did you mean 'kafka'?",
		`return _G.descrbe_topics()`:         "test:1: attempt to call nil 'descrbe_topics'",
		`no_such_function()`:                 "test:1: attempt to call nil 'no_such_function'",
		`kafka.default:lagg()`:               "test:1: attempt to call nil 'lagg': did you mean 'lag'?",
		`local t = {} t.lagg()`:              "test:1: attempt to call nil 'lagg'",
		`local lagg lagg()`:                  "test:1: attempt to call nil 'lagg'",
		`local t = {} t[1]()`:                "test:1: attempt to call a nil value",
		`_G["lagg\27"]()`:                    "test:1: attempt to call nil 'lagg\\x1b'", // a field: escaped, no guess
		"function f() return lagg() end f()": "test:1: attempt to call nil 'lagg': did you mean 'lag'?",
	} {
		re := e.runErr(src)
		assert.Equal(t, want, re.Message, src)
		assert.Equal(t, KindScript, re.Kind, src)
	}
	v := e.run(`local ok, err = pcall(function() return lagg() end) return err`)
	assert.Contains(t, lua.LVAsString(v), "attempt to call nil 'lagg': did you mean 'lag'?")
	v = e.run(`return select(2, pcall(nil))`)
	assert.Contains(t, lua.LVAsString(v), "attempt to call a nil value", "a call from Go has no name")
	// Calling anything else that is not a function is as before.
	assert.Contains(t, e.runErr(`local n = 1 n()`).Message, "attempt to call a non-function object")
	assert.Equal(t, lua.LString("protected: built-ins cannot be replaced"), e.run(`return getmetatable(nil)`))
}

// Reading an undefined global is nil, even when its name is near a
// built-in's: a script's own counters keep working when a built-in is
// added near their names.
func TestReadingAnUndefinedGlobalIsNil(t *testing.T) {
	e := newBareEnv(t, Options{})
	assert.Equal(t, lua.LNumber(2), e.run(`seen = (seen or 0) + 1 seen = (seen or 0) + 1 return seen`), "seen is near peek")
	assert.Equal(t, lua.LTrue, e.run(`return lagg == nil and list_topic == nil and _G.descrbe_topics == nil`))
	assert.Equal(t, lua.LTrue, e.run(`return some_flag == nil and DEBUG == nil and x == nil`))
	assert.Equal(t, lua.LNil, e.run(`return rawget(_G, "lagg")`))
	assert.Equal(t, lua.LNil, e.run(`return _printregs`), "gopher-lua's debugging global is gone")
	assert.Equal(t, lua.LNil, e.rt.L.GetGlobal("lagg"))
}

// Functions the script defines are candidates too, as soon as they exist.
func TestCallingAnUndefinedGlobalSeesNewGlobals(t *testing.T) {
	e := newBareEnv(t, Options{})
	assert.Equal(t, "test:1: attempt to call nil 'check_lagg'", e.runErr(`return check_lagg()`).Message, "nothing close yet")
	e.run(`function check_lag() return 1 end`)
	re := e.runErr(`return check_lagg()`)
	assert.Equal(t, "test:1: attempt to call nil 'check_lagg': did you mean 'check_lag'?", re.Message)
	e.run(`check_lag = nil`)
	assert.Equal(t, "test:1: attempt to call nil 'check_lagg'", e.runErr(`return check_lagg()`).Message, "a removed function is not suggested")
	// Assigning new globals still works, through the metatable.
	assert.Equal(t, lua.LNumber(3), e.run(`new_global = 3 return rawget(_G, "new_global")`))
}

func TestHelpSuggestsAName(t *testing.T) {
	e := newBareEnv(t, Options{})
	e.run(`help("lagg")`)
	assert.Equal(t, "no function named \"lagg\" (did you mean 'lag'?); help() lists them\n", e.stdout.String())
	e.stdout.Reset()
	e.run(`help("json.encod")`)
	assert.Contains(t, e.stdout.String(), "(did you mean 'json.encode'?)")
	e.stdout.Reset()
	e.run(`help("zzzz")`)
	assert.Equal(t, "no function named \"zzzz\"; help() lists them\n", e.stdout.String())
}

func TestREPLLineWithTypoSaysWhichName(t *testing.T) {
	e := newBareEnv(t, Options{})
	_, _, err := e.rt.EvalLine(context.Background(), "lagg()")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "attempt to call nil 'lagg': did you mean 'lag'?")
}
