package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
)

// runMode is one way the CLI runs Lua, set up to create topic name on the
// cluster at addrs: the arguments after the global flags, and what it
// needs around it (a file, stdin, a plugin, a config file).
type runMode struct {
	name string
	args func(t *testing.T, c *cli, addrs, name string) []string
}

func scriptFile(t *testing.T, name string) string {
	return writeFile(t, "fix.lua", fmt.Sprintf(`create_topics{%q}`, name))
}

func withPlugin(t *testing.T, addrs string, rest ...string) []string {
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	return append([]string{"-b", addrs, "--plugin-path", dir}, rest...)
}

var runModes = []runMode{
	{"-e", func(t *testing.T, c *cli, addrs, name string) []string {
		return []string{"-b", addrs, "-e", fmt.Sprintf(`create_topics{%q}`, name)}
	}},
	{"run FILE", func(t *testing.T, c *cli, addrs, name string) []string {
		return []string{"-b", addrs, "run", scriptFile(t, name)}
	}},
	{"stdin", func(t *testing.T, c *cli, addrs, name string) []string {
		c.stdin = strings.NewReader(fmt.Sprintf(`create_topics{%q}`, name))
		return []string{"-b", addrs}
	}},
	{"runbook", func(t *testing.T, c *cli, addrs, name string) []string {
		spec := writeFile(t, "topics.json", fmt.Sprintf(`[{"name": %q, "partitions": 1}]`, name))
		return []string{"-b", addrs, "run", "ensure-topics", spec}
	}},
	{"plugin command", func(t *testing.T, c *cli, addrs, name string) []string {
		return withPlugin(t, addrs, "run", "make-topics", "1", name)
	}},
	{"plugin function", func(t *testing.T, c *cli, addrs, name string) []string {
		return withPlugin(t, addrs, "-e", fmt.Sprintf(`make_topics(1, %q)`, name))
	}},
	{"--metrics-file", func(t *testing.T, c *cli, addrs, name string) []string {
		return []string{"-b", addrs, "run", "--metrics-file", filepath.Join(t.TempDir(), "m.prom"), scriptFile(t, name)}
	}},
	{"--every", func(t *testing.T, c *cli, addrs, name string) []string {
		return []string{"-b", addrs, "run", "--every", "10ms", "--max-runs", "1", scriptFile(t, name)}
	}},
	{"--profiles", func(t *testing.T, c *cli, addrs, name string) []string {
		writeConfig(t, c, fmt.Sprintf(`{"profiles": {"east": {"brokers": [%q]}}}`, addrs))
		return []string{"run", "--profiles", "east", scriptFile(t, name)}
	}},
	{"kafka.connect", func(t *testing.T, c *cli, addrs, name string) []string {
		return []string{"-b", addrs, "-e", fmt.Sprintf(`kafka.connect{brokers = %q}:create_topics{%q}`, addrs, name)}
	}},
}

// createsSeen records each CreateTopics request the cluster receives: its
// validate_only, and whether an intent line without outcome was on disk.
type createsSeen struct {
	mu   sync.Mutex
	sent []struct{ validateOnly, pending bool }
}

func watchCreates(c *cluster, auditPath string) *createsSeen {
	w := &createsSeen{}
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		vo := req.(*kmsg.CreateTopicsRequest).ValidateOnly
		w.mu.Lock()
		w.sent = append(w.sent, struct{ validateOnly, pending bool }{vo, intentPending(auditPath)})
		w.mu.Unlock()
		return nil, nil, false
	})
	return w
}

// intentPending: the audit log ends, as a crash now would leave it, with a
// create_topics intent that has no outcome yet.
func intentPending(path string) bool {
	b, _ := os.ReadFile(path)
	open := map[string]bool{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var rec auditlog.Record
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		if rec.Type == auditlog.TypeIntent && rec.Op == "create_topics" {
			open[rec.ID] = true
		} else if rec.Type == auditlog.TypeOutcome {
			delete(open, rec.ID)
		}
	}
	return len(open) > 0
}

func auditChanges(t *testing.T, path string) []auditlog.Change {
	t.Helper()
	changes, problems, err := auditlog.ReadFile(path, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	return changes
}

// TestEveryRunModeAuditsDryRunsAndUndoes: in every way the CLI runs Lua,
// a change is written ahead (its intent line on disk before the request
// reaches the broker), --dry-run sends nothing that changes the cluster
// and writes no line, and `kadmin-lua undo` reverts what the audit log
// says was done.
func TestEveryRunModeAuditsDryRunsAndUndoes(t *testing.T) {
	for _, m := range runModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			cl := newCluster(t)
			// A fresh client per look: kgo's metadata cache would answer
			// a second listing from the first.
			topics := func() []string { return topicNames(t, cl.admin(t)) }
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			seen := watchCreates(cl, path)

			dry := newCLI(t)
			args := m.args(t, dry, cl.addrs, "dry")
			require.Equal(t, ExitOK, dry.run(append([]string{"--dry-run", "--audit-log", path}, args...)...), dry.stderr.String())
			assert.NotContains(t, topics(), "dry")
			assert.Empty(t, auditChanges(t, path), "a dry run writes no audit line")
			seen.mu.Lock()
			for _, s := range seen.sent {
				assert.True(t, s.validateOnly, "under --dry-run CreateTopics went out only with validate_only")
			}
			seen.sent = nil
			seen.mu.Unlock()

			live := newCLI(t)
			args = m.args(t, live, cl.addrs, "fixed")
			require.Equal(t, ExitOK, live.run(append([]string{"--audit-log", path}, args...)...), live.stderr.String())
			assert.Contains(t, topics(), "fixed")
			seen.mu.Lock()
			var real int
			for _, s := range seen.sent {
				if !s.validateOnly {
					real++
					assert.True(t, s.pending, "the CreateTopics request arrived with its intent line on disk")
				}
			}
			seen.mu.Unlock()
			assert.Equal(t, 1, real, "one topic was created")
			changes := auditChanges(t, path)
			require.Len(t, changes, 1, "the change is in the audit log")
			assert.Equal(t, "create_topics", changes[0].Intent.Op)
			assert.NotEmpty(t, changes[0].Intent.ClusterID)
			require.NotNil(t, changes[0].Outcome)

			undo := newCLI(t)
			require.Equal(t, ExitOK, undo.run("-b", cl.addrs, "undo", "--yes", path), undo.stderr.String())
			assert.NotContains(t, topics(), "fixed", "undo deleted the created topic")
			assert.Contains(t, undo.stdout.String(), "reverted")
		})
	}
}
