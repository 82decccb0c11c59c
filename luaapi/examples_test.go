package luaapi

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// TestExamples runs every declared function's Example, whatever is
// registered, each in a freshly seeded demo cluster (the one `make demo`
// starts), so an example may create, change or delete what it likes. An
// example fails the test when it raises, when a kafka.check in it fails, or
// when it returns false. Every admin function must have an example; a
// library function without one is reported in the log.
func TestExamples(t *testing.T) {
	fs := Funcs()
	require.NotEmpty(t, fs)
	for _, f := range fs {
		t.Run(f.Name, func(t *testing.T) {
			if strings.TrimSpace(f.Example) == "" {
				if f.IsAdmin() {
					t.Fatalf("function %s has no example: every admin function needs one that runs against the demo cluster", f.Name)
				}
				t.Logf("library function %s has no example of its own", f.Name)
				return
			}
			t.Parallel()
			out, err := runExample(f)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("example of %s ran; stdout:\n%s", f.Name, out)
		})
	}
}

// runExample runs f's example against a fresh demo cluster and returns
// what it printed, or an error naming f.
func runExample(f *Func) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := demo.Start(ctx)
	if err != nil {
		return "", fmt.Errorf("example of %s: starting the demo cluster: %w", f.Name, err)
	}
	defer c.Close()

	var stdout, stderr bytes.Buffer
	rt := New(Options{
		Config: engine.Config{Brokers: c.Addrs, Timeout: 15 * time.Second, Registry: &schemas.Config{URLs: []string{c.RegistryURL}}},
		Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""),
		Env: func(string) string { return "" },
	})
	defer rt.Close()

	detail := func() string {
		return fmt.Sprintf("\n--- example:\n%s\n--- stdout:\n%s--- stderr:\n%s", f.Example, stdout.String(), stderr.String())
	}
	vals, err := rt.DoString(ctx, f.Name+" example", f.Example)
	switch {
	case err != nil:
		return "", fmt.Errorf("example of %s failed: %v%s", f.Name, err, detail())
	case len(rt.CheckFailures()) > 0:
		return "", fmt.Errorf("example of %s: kafka.check failed: %s%s", f.Name, strings.Join(rt.CheckFailures(), "; "), detail())
	case len(vals) > 0 && vals[0] == lua.LFalse:
		return "", fmt.Errorf("example of %s returned false%s", f.Name, detail())
	}
	return stdout.String(), nil
}

func TestRunExampleNamesTheFailingFunction(t *testing.T) {
	for example, want := range map[string]string{
		`describe_topics("no-such-topic")`:           "example of broken_fn failed: ",
		`kafka.check(false, "not healthy")`:          "example of broken_fn: kafka.check failed: not healthy",
		`return #list_topics() == 0`:                 "example of broken_fn returned false",
		`error("boom")`:                              "boom",
		`return #list_topics{match="^orders$"} == 1`: "",
	} {
		out, err := runExample(&Func{Name: "broken_fn", Example: example})
		if want == "" {
			assert.NoError(t, err, example)
			continue
		}
		require.Error(t, err, example)
		assert.Contains(t, err.Error(), want, example)
		assert.Contains(t, err.Error(), "broken_fn", example)
		assert.Empty(t, out)
	}
}
