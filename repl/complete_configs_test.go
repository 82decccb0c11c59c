package repl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Config names come from the cluster: the names a topic and a broker
// report, in strings where a config name goes and as bracketed keys of
// alter_configs' maps.
func TestCompleteConfigNames(t *testing.T) {
	e := newEnv(t)
	e.createTopic("orders", 1)
	_, complete := e.completer(time.Minute, 10*time.Second)
	for _, tc := range []struct {
		line string
		want []string
		n    int
	}{
		{`describe_configs({topic = "orders"}, {keys = {"retention.`, []string{"retention.bytes", "retention.ms"}, 10},
		{`alter_configs{{topic = "orders", delete = {"cleanup.po`, []string{"cleanup.policy"}, 10},
		{`alter_configs{{topic = "orders", set = {["min.insync`, []string{"min.insync.replicas"}, 10},
		{`alter_configs{{topic = "orders", set = {retention.m`, nil, 0},
		{`alter_configs{{topic = "orders", set = {retention`, []string{`["retention.bytes"]`, `["retention.ms"]`}, 9},
		{`alter_configs{{broker = 1, set = {log.retention.hou`, nil, 0},
		{`alter_configs{{broker = 1, set = {log`, []string{}, 3},
		{`create_topics{{name = "x", configs = {segment`, []string{`["segment.bytes"]`, `["segment.ms"]`}, 7}, // what kfake reports,
	} {
		got, n := complete(tc.line)
		if tc.want != nil && len(tc.want) == 0 {
			assert.NotEmpty(t, got, tc.line)
			for _, g := range got {
				assert.Regexp(t, `^\["log\.`, g, tc.line)
			}
			assert.Equal(t, tc.n, n, tc.line)
			continue
		}
		if tc.want == nil {
			continue // a dotted name is no Lua key: nothing sensible to offer
		}
		assert.Equal(t, tc.want, got, tc.line)
		assert.Equal(t, tc.n, n, tc.line)
	}
}
