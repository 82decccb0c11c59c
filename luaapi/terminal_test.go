package luaapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	lua "github.com/yuin/gopher-lua"
)

// Names a client chose, as a cluster hands them back: a topic that turns
// the terminal red and a group that retitles the window and rings.
const (
	redTopic   = "\x1b[31mred\x07"
	titleGroup = "\x1b]0;pwned\x07grp\x00"
)

func newHostileCluster(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 2, 1, nil, redTopic)
	require.NoError(t, err)
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: redTopic, Partition: 0, At: 0, LeaderEpoch: -1})
	resp, err := e.adm.CommitOffsets(e.ctx(), titleGroup, offsets)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	return e
}

// noControls fails when s holds a byte that a terminal would obey.
func noControls(t *testing.T, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		c := s[i]
		require.False(t, (c < 0x20 && c != '\n') || c == 0x7f, "control byte %#x at %d in:\n%s", c, i, s)
	}
}

func (e *env) format(src, output string) string {
	e.t.Helper()
	vals, err := e.rt.DoString(context.Background(), "test", src)
	require.NoError(e.t, err, src)
	out, err := e.rt.Format(vals, output)
	require.NoError(e.t, err, src)
	return out
}

func TestTableOutputEscapesClusterStrings(t *testing.T) {
	e := newHostileCluster(t)
	for src, want := range map[string]string{
		`return list_topics()`:                           `\x1b[31mred\a`,
		`return list_groups()`:                           `\x1b]0;pwned\agrp\x00`,
		`return fetch_offsets(list_groups()[1].group)`:   `\x1b[31mred\a`,
		`return describe_groups{list_groups()[1].group}`: `\x1b]0;pwned\agrp\x00`,
		`return list_topics()[1].name`:                   `\x1b[31mred\a`, // a string on its own
		`return {names = {list_topics()[1].name}}`:       `names = {"\x1b[31mred\a"}`,
	} {
		out := e.format(src, "table")
		assert.Contains(t, out, want, src)
		noControls(t, out)
	}
	// kafka.pp prints the same way.
	e.run(`kafka.pp(list_groups(), list_topics()[1].name)`)
	assert.Contains(t, e.stdout.String(), `\x1b]0;pwned\agrp\x00`)
	noControls(t, e.stdout.String())
}

// JSON keeps the exact name: any JSON reader, and kafka.json.decode, give
// back the very bytes, so the name can be used again.
func TestJSONOutputKeepsClusterStringsExact(t *testing.T) {
	e := newHostileCluster(t)
	out := e.format(`return list_groups()`, "json")
	assert.Contains(t, out, `"\u001b]0;pwned\u0007grp\u0000"`)
	noControls(t, out)
	var groups []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &groups))
	require.Len(t, groups, 1)
	assert.Equal(t, titleGroup, groups[0]["group"])

	// Written and read back by a script, the name still finds the group.
	v := e.run(`local s = kafka.json.encode(list_groups())
		local g = kafka.json.decode(s)[1].group
		return fetch_offsets(g)[1].topic`)
	assert.Equal(t, lua.LString(redTopic), v)
}

// The Lua form reads back as the same string.
func TestLuaOutputReadsBack(t *testing.T) {
	e := newHostileCluster(t)
	out := e.format(`return {group = list_groups()[1].group}`, "table")
	assert.Equal(t, "{\n  group = \"\\x1b]0;pwned\\agrp\\x00\",\n}\n", out)
	assert.Equal(t, lua.LString(titleGroup), e.run("return ("+strings.TrimSpace(out)+").group"))
}

// kafka.log lines are one line each, escaped like cells.
func TestLogLinesEscapeClusterStrings(t *testing.T) {
	e := newHostileCluster(t)
	e.run(`local g = list_groups()[1].group
		kafka.log.info{msg = "group " .. g .. "\nFAKE LINE", group = g, [g] = 1}
		kafka.log.warn(g)
		kafka.check(false, "lag of " .. g)`)
	out := e.stderr.String()
	assert.Contains(t, out, ` INFO group \x1b]0;pwned\agrp\x00\nFAKE LINE `)
	assert.Contains(t, out, ` group="\x1b]0;pwned\agrp\x00"`)
	assert.Contains(t, out, ` \x1b]0;pwned\agrp\x00=1`)
	assert.Contains(t, out, ` WARN \x1b]0;pwned\agrp\x00`)
	assert.Contains(t, out, "check failed: lag of \\x1b]0;pwned\\agrp\\x00\n")
	assert.Equal(t, 3, strings.Count(out, "\n"), out)
	noControls(t, out)
}
