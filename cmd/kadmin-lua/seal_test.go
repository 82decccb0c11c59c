package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClearValuesKeepsNamesAndLayout(t *testing.T) {
	block := []byte("A=1\x00KADMIN_AUDIT_KEY=k3y\x00B=x=y\x00PW=\x00PW=again\x00KADMIN_AUDIT_KEYS=no\x00")
	n := clearValues(block, map[string]bool{"KADMIN_AUDIT_KEY": true, "PW": true})
	assert.Equal(t, 3, n)
	assert.Equal(t, "A=1\x00KADMIN_AUDIT_KEY=\x00\x00\x00\x00B=x=y\x00PW=\x00PW=\x00\x00\x00\x00\x00\x00KADMIN_AUDIT_KEYS=no\x00", string(block))
}

// seal moves a variable out of the Go environment and keeps its value for
// the CLI. (The test process's own start environment has no such
// variable, but the block is found and checked all the same.)
func TestSealedEnvKeepsWhatItTakes(t *testing.T) {
	t.Setenv("KADMIN_TEST_SEALED", "v4lue")
	s := newSealedEnv()
	require.NoError(t, s.seal("KADMIN_TEST_SEALED", "KADMIN_TEST_NOT_SET", ""))
	_, set := os.LookupEnv("KADMIN_TEST_SEALED")
	assert.False(t, set, "gone from the Go environment (children inherit nothing)")
	assert.Equal(t, "v4lue", s.getenv("KADMIN_TEST_SEALED"))
	assert.Equal(t, "", s.getenv("KADMIN_TEST_NOT_SET"))
	assert.Equal(t, os.Getenv("HOME"), s.getenv("HOME"), "the rest is the process's")
	require.NoError(t, s.seal("KADMIN_TEST_SEALED"), "sealing again does nothing")
	assert.Equal(t, "v4lue", s.getenv("KADMIN_TEST_SEALED"))
}

// The variables every profile of the config file reads secrets from are
// sealed once the file is read, before any script runs.
func TestConfigFileSecretVariablesAreSealed(t *testing.T) {
	w := newFleetWorld(t)
	var sealed []string
	st := w.c.state([]string{"--timeout", "30s", "run", "--profiles", "eu", writeFile(t, "x.lua", `return 1`)})
	st.Seal = func(names ...string) error { sealed = append(sealed, names...); return nil }
	require.Equal(t, ExitOK, run(st), w.c.stderr.String())
	assert.Contains(t, sealed, "EU_PW")
	assert.Contains(t, sealed, "US_PW", "another profile's, which kafka.env hides from eu's script")
}
