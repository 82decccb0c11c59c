//go:build unix

package state

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killChildEnv makes the test binary a run that records into a state file
// and stops where it is told, for TestStateFileKilledMidRunKeepsThePreviousFile
// to kill it there.
const killChildEnv = "KADMIN_STATE_KILL_CHILD"

// killedRun records three pages of groups into the state file at path, and
// says "ready" on stdout, then waits to be killed: after its first page
// ("pages"), or halfway through writing the file behind the run ("write").
func killedRun(path, at string) {
	s, err := OpenFile(path, Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ready := func() {
		fmt.Println("ready")
		select {} // killed here
	}
	s.file.write = func(w io.Writer, b []byte) (int, error) {
		n, err := w.Write(b[:len(b)/2])
		if err == nil && at == "write" {
			ready()
		}
		return n, err
	}
	for page := range 3 {
		var seen []Group[row]
		for g := range 50 {
			seen = append(seen, Group[row]{Name: fmt.Sprintf("g%d-%d", page, g), Parts: []row{lagRow("t", 0, 7, 9), lagRow("t", 1, 7, 9)}})
		}
		if err := RecordPage(s, "cluster-a", "profile:a", 50_000, seen, readRow, nil); err != nil {
			fmt.Println(err)
			return
		}
		if at == "pages" {
			ready()
		}
	}
	s.WriteBehind()
	_ = s.Save()
}

// A run killed (kill -9) between its pages, or while it writes its file,
// leaves the file of the run before it as it was (a temporary file is
// renamed over it only once written whole); the next run takes the lock,
// removes the killed run's temporary file and reads the previous samples.
func TestStateFileKilledMidRunKeepsThePreviousFile(t *testing.T) {
	if at := os.Getenv(killChildEnv); at != "" {
		killedRun(os.Getenv(killChildEnv+"_PATH"), at)
		return
	}
	for _, at := range []string{"pages", "write"} {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state")
			savedOneSample(t, path).Close()
			before, err := os.ReadFile(path)
			require.NoError(t, err)

			child := exec.Command(os.Args[0], "-test.run=^TestStateFileKilledMidRunKeepsThePreviousFile$")
			child.Env = append(os.Environ(), killChildEnv+"="+at, killChildEnv+"_PATH="+path)
			out, err := child.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, child.Start())
			lines := bufio.NewScanner(out)
			for lines.Scan() && lines.Text() != "ready" {
			}
			require.Equal(t, "ready", lines.Text(), "the run stopped where it was told")
			require.NoError(t, child.Process.Signal(syscall.SIGKILL))
			_ = child.Wait()

			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the previous run's file, as it was")
			temps, _ := filepath.Glob(filepath.Join(dir, ".state.tmp-*"))
			if at == "write" {
				assert.Len(t, temps, 1, "the half-written temporary file is left")
			}
			next, err := OpenFile(path, Options{LockWait: 5 * time.Second})
			require.NoError(t, err)
			defer next.Close()
			recordOne(t, next, 60_000, "g", lagRow("t", 0, 2, 3))
			assert.Len(t, next.Window("cluster-a", "g", "t", 0), 2, "the previous run's sample and this one")
			assert.Nil(t, next.Window("cluster-a", "g0-0", "t", 0), "nothing of the killed run")
			require.NoError(t, next.Save())
			temps, _ = filepath.Glob(filepath.Join(dir, ".state.tmp-*"))
			assert.Empty(t, temps, "the killed run's temporary file is removed")
		})
	}
}
