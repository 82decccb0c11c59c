package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// kadminBinary builds kadmin-lua for the tests that run it as a program
// (the completion scripts call it), returning its directory.
func kadminBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "kadmin-lua"), ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return dir
}

// bashHarness sources the generated completion script and completes the
// words given as arguments, as bash does on Tab: COMP_WORDS/COMP_CWORD set,
// then the registered function. The bash-completion package is not loaded
// (bash --norc): the script brings its own _get_comp_words_by_ref then, and
// "command not found" on stderr fails the completion.
const bashHarness = `
source <(kadmin-lua completion bash) || exit 9
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
COMP_TYPE=${TEST_COMP_TYPE:-37}
COMPREPLY=()
fn=$(complete -p kadmin-lua | sed -E 's/.* -F ([^ ]+) .*/\1/')
"$fn" kadmin-lua "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/tmp/kadmin-lua-complete-err.$$
# compopt complains outside a real Tab; a missing function must not.
if grep -q 'command not found' /tmp/kadmin-lua-complete-err.$$; then cat /tmp/kadmin-lua-complete-err.$$ >&2; rm -f /tmp/kadmin-lua-complete-err.$$; exit 8; fi
rm -f /tmp/kadmin-lua-complete-err.$$
printf '%s\n' "${COMPREPLY[@]}"
`

type bashEnv struct {
	t    *testing.T
	bin  string // the directory holding the kadmin-lua binary
	home string
	dir  string // working directory
	env  []string
}

// complete returns what bash offers for the words (the last is being typed).
func (b *bashEnv) complete(words ...string) []string {
	b.t.Helper()
	cmd := exec.Command("bash", append([]string{"--norc", "--noprofile", "-c", bashHarness, "bash"}, words...)...)
	cmd.Dir = b.dir
	cmd.Env = append([]string{"PATH=" + b.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + b.home}, b.env...)
	out, err := cmd.Output()
	require.NoError(b.t, err, "%v", words)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	sort.Strings(got)
	return got
}

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, ".config", "kadmin-lua")
	require.NoError(t, os.MkdirAll(cfg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"default_profile": "local",
		"profiles": {"local": {"brokers": ["localhost:9092"]}, "prod": {"brokers": ["kafka-1.prod:9093"]}, "prod-eu": {}}}`), 0o600))
	other := filepath.Join(home, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"profiles": {"staging": {}}}`), 0o600))
	work := testfiles.Tree(t, map[string]string{"health.lua": "return 1", "notes.txt": "", "jobs/nightly.lua": "return 2",
		"jobs/sweep.lua": "-- sweep.lua: tidy up\n-- Usage: kadmin-lua run jobs/sweep.lua [--older-than DAYS] [--really]\n" +
			"-- Arguments:\n--   --older-than DAYS  only topics older than this\n--   --really  delete them\nreturn 3"})
	plugins := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	b := &bashEnv{t: t, bin: kadminBinary(t), home: home, dir: work}

	// Subcommands and flags.
	assert.Subset(t, b.complete("kadmin-lua", ""), []string{"completion", "doc", "plugins", "run", "runbooks", "version"})
	assert.Equal(t, []string{"--profile"}, b.complete("kadmin-lua", "--prof"))
	assert.Contains(t, b.complete("kadmin-lua", "--"), "--dry-run")
	assert.Subset(t, b.complete("kadmin-lua", "doc", "--"), []string{"--json", "--markdown", "--output"})

	// Profile names from the config file, or from --config's.
	assert.Equal(t, []string{"local", "prod", "prod-eu"}, b.complete("kadmin-lua", "--profile", ""))
	assert.Equal(t, []string{"prod", "prod-eu"}, b.complete("kadmin-lua", "--profile", "pr"))
	assert.Equal(t, []string{"staging"}, b.complete("kadmin-lua", "--config", other, "--profile", ""))
	assert.Equal(t, []string{"SCRAM-SHA-256", "SCRAM-SHA-512"}, b.complete("kadmin-lua", "--sasl-mechanism", "SC"))
	assert.Equal(t, []string{"AWS_MSK_IAM", "GSSAPI", "OAUTHBEARER", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"},
		b.complete("kadmin-lua", "--sasl-mechanism", ""), "every mechanism it logs in with")
	assert.Equal(t, []string{"json", "ndjson", "table", "yaml"}, b.complete("kadmin-lua", "-o", ""), "bash sorts them")
	assert.Equal(t, []string{"yaml"}, b.complete("kadmin-lua", "--output", "y"))

	// run: built-in runbooks, plugin commands, .lua files and directories.
	want := append(scripts.Names(), "health.lua", "jobs/")
	sort.Strings(want)
	assert.Equal(t, want, b.complete("kadmin-lua", "run", ""))
	assert.Equal(t, []string{"reset-offsets"}, b.complete("kadmin-lua", "run", "res"))
	assert.Equal(t, []string{"jobs/nightly.lua", "jobs/sweep.lua"}, b.complete("kadmin-lua", "run", "jobs/"))
	assert.Equal(t, []string{"make-topics"}, b.complete("kadmin-lua", "--plugin-path", plugins, "run", "ma"))
	assert.Equal(t, []string{"check-lag", "cluster-health", "copy-group-offsets"}, b.complete("kadmin-lua", "--embedded", "run", "c"))

	// A script's flags, from its usage line (lib/args refuses any other).
	assert.Equal(t, []string{"--alert", "--alert-after", "--fail-on-loss", "--fail-on-remote", "--help", "--max", "--max-seconds", "--min-complete"}, b.complete("kadmin-lua", "run", "check-lag", "--"))
	assert.Equal(t, []string{"--max", "--max-seconds", "--min-complete"}, b.complete("kadmin-lua", "run", "check-lag", "billing", "--m"))
	assert.Equal(t, []string{"--brokers", "--help", "--leader-skew-pct", "--preferred-imbalance-pct", "--quorum-lag-ms"},
		b.complete("kadmin-lua", "run", "cluster-health", "--brokers", "3", "--"),
		"flags after other flags and values")
	assert.Equal(t, []string{"--help", "--older-than", "--really"}, b.complete("kadmin-lua", "run", "jobs/sweep.lua", "--"))
	assert.Equal(t, []string{"--help"}, b.complete("kadmin-lua", "--plugin-path", plugins, "run", "make-topics", "--"))

	// doc: function names and aliases.
	assert.Equal(t, []string{"describe_configs", "describe_consumer_groups"}, b.complete("kadmin-lua", "doc", "describe_con"))
	assert.Equal(t, []string{"kafka.sleep"}, b.complete("kadmin-lua", "doc", "kafka.sl"))
	assert.Equal(t, []string{"bash", "fish", "powershell", "zsh"}, b.complete("kadmin-lua", "completion", ""))

	// A real Tab (COMP_TYPE 9): several matches are listed with their
	// summaries; a single one is inserted bare.
	b.env = []string{"TEST_COMP_TYPE=9", "COLUMNS=200"}
	listed := b.complete("kadmin-lua", "run", "res")
	assert.Equal(t, []string{"reset-offsets"}, listed)
	listed = b.complete("kadmin-lua", "run", "re")
	assert.Equal(t, []string{"rebalance      (spread topics' replicas and leaders evenly over the brokers, paced.)",
		"reset-offsets  (move a stopped consumer group's committed offsets.)"}, listed)
	listed = b.complete("kadmin-lua", "run", "c")
	require.Len(t, listed, 3)
	assert.Regexp(t, `^check-lag +\(a consumer-lag health check for cron\.\)$`, listed[0])
}

func TestCompletionScripts(t *testing.T) {
	c := newCLI(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		require.Equal(t, ExitOK, c.run("completion", shell), "%s: %s", shell, c.stderr.String())
		assert.Contains(t, c.stdout.String(), "__complete", shell)
		assert.Contains(t, c.stdout.String(), "kadmin-lua", shell)
	}
	assert.Equal(t, ExitUsage, c.run("completion", "tcsh"))
	assert.Equal(t, ExitUsage, c.run("completion"))
}
