package repl

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A long destructive call is summarised: the summary lines are printed,
// the question is the prompt, and declining changes nothing.
func TestLongDestructiveCallIsSummarised(t *testing.T) {
	e := newEnv(t)
	var names []string
	for i := 1; i <= 12; i++ {
		names = append(names, fmt.Sprintf(`"doomed-topic-%02d"`, i))
		e.createTopic(fmt.Sprintf("doomed-topic-%02d", i), 1)
	}
	call := "delete_topics{" + strings.Join(names, ", ") + "}"
	f := e.run(Options{}, line(call), line("n"))
	out := e.stdout.String()
	assert.Contains(t, out, "delete_topics on cluster kfake (")
	assert.Contains(t, out, "  names: 12\n    \"doomed-topic-01\"\n")
	assert.Contains(t, out, "    and 7 more\n")
	assert.NotContains(t, out, `"doomed-topic-06"`)
	m := regexp.MustCompile(`full arguments: (\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	t.Cleanup(func() { os.Remove(m[1]) })
	data, err := os.ReadFile(m[1])
	require.NoError(t, err)
	assert.Contains(t, string(data), `"doomed-topic-12"`)

	var question string
	for _, p := range f.prompts {
		if strings.HasSuffix(p, "? [y/N] ") {
			question = p
		}
	}
	assert.Regexp(t, `^delete_topics\(12 names\) on cluster kfake \(.*\)\? \[y/N\] $`, question)
	assert.NotContains(t, question, "\n")
	assert.True(t, e.topicExists("doomed-topic-12"), "declined: nothing deleted")
}
