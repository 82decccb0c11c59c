package repl

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// With a profile, the prompt, the banner and the question before a
// destructive call name it.
func TestPromptAndConfirmationNameTheProfile(t *testing.T) {
	e := newEnvWith(t, func(o *luaapi.Options) { o.Config.Profile = "prod" })
	e.createTopic("doomed", 1)
	addrs := strings.Join(e.cluster.ListenAddrs(), ",")

	f := e.run(Options{}, line(`delete_topics{"doomed"}`), line("n"), line("x = 1"))
	assert.Equal(t, []string{"kadmin-lua prod> ", `delete_topics(["doomed"]) on profile prod (` + addrs + `)? [y/N] `,
		"kadmin-lua prod> ", "kadmin-lua prod> "}, f.prompts)
	assert.Contains(t, e.stdout.String(), "cluster prod ("+addrs+")")
	assert.True(t, e.topicExists("doomed"))
}

// A kafka.connect{profile=} client's calls name its profile.
func TestConfirmationNamesTheClientsProfile(t *testing.T) {
	other := newEnv(t)
	other.createTopic("doomed", 1)
	e := newEnvWith(t, func(o *luaapi.Options) {
		o.Resolve = func(profile string) (engine.Config, error) {
			return engine.Config{Brokers: other.cluster.ListenAddrs(), Profile: profile}, nil
		}
	})
	f := e.run(Options{}, line(`staging = kafka.connect{profile = "staging"}`), line(`staging:delete_topics{"doomed"}`), line("n"))
	assert.Contains(t, f.prompts, `delete_topics(["doomed"]) on profile staging (`+strings.Join(other.cluster.ListenAddrs(), ",")+`)? [y/N] `)
	assert.Equal(t, kfakePrompt, f.prompts[0], "the prompt names the default cluster")
	assert.True(t, other.topicExists("doomed"))
}

// Without a profile the prompt names the cluster id once the cluster
// answers; without a cluster it names nothing, and an unreachable one
// holds the first prompt no longer than the names bound.
func TestPromptWithoutAProfile(t *testing.T) {
	e := newEnv(t)
	f := e.run(Options{}, line("x = 1"))
	assert.Equal(t, []string{kfakePrompt, kfakePrompt}, f.prompts)
	assert.Contains(t, e.stdout.String(), "cluster kfake (")

	none := newEnvWith(t, func(o *luaapi.Options) { o.Config = engine.Config{} })
	f = none.run(Options{}, line("x = 1"))
	assert.Equal(t, []string{"kadmin-lua> ", "kadmin-lua> "}, f.prompts)
	assert.Contains(t, none.stdout.String(), "no default cluster")

	silent := newEnvWith(t, func(o *luaapi.Options) {
		o.Config = engine.Config{Brokers: []string{testnet.SilentBroker(t)}, Timeout: 30 * time.Second}
	})
	start := time.Now()
	f = silent.run(Options{NamesWait: 200 * time.Millisecond}, line("x = 1"))
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, []string{"kadmin-lua> ", "kadmin-lua> "}, f.prompts)
}

func TestPromptEscapesTheClusterName(t *testing.T) {
	assert.Equal(t, `kadmin-lua a\x1b[31mb> `, promptFor("a\x1b[31mb"))
	assert.Equal(t, "kadmin-lua> ", promptFor(""))
	require.Equal(t, "kadmin-lua prod> ", promptFor("prod"))
}
