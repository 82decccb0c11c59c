package boundedfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadRefusesWhatIsNotABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, make([]byte, 1025), 0o600))
	small := filepath.Join(dir, "small")
	require.NoError(t, os.WriteFile(small, []byte("ok"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(small, link))

	for path, want := range map[string]string{
		fifo:                       "read " + fifo + ": is a named pipe (FIFO), not a regular file",
		"/dev/zero":                "read /dev/zero: is a device, not a regular file",
		dir:                        "read " + dir + ": is a directory, not a regular file",
		big:                        big + ": larger than 1 KiB, the most kadmin-lua reads of such a file",
		filepath.Join(dir, "none"): "no such file or directory",
	} {
		began := time.Now()
		_, err := Read(path, 1024)
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), want)
		assert.Less(t, time.Since(began), time.Second, "refused at once, not waited on")
	}
	for _, ok := range []string{small, link} {
		b, err := Read(ok, 1024)
		require.NoError(t, err)
		assert.Equal(t, "ok", string(b))
	}
	// A file over the limit is refused from its size, unread: a sparse
	// terabyte answers at once; one of exactly the limit is read whole.
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<40))
	require.NoError(t, f.Close())
	began := time.Now()
	_, err = Read(huge, Offsets)
	require.EqualError(t, err, huge+": larger than 64 MiB, the most kadmin-lua reads of such a file")
	assert.Less(t, time.Since(began), time.Second, "refused unread")
	full := filepath.Join(dir, "full")
	require.NoError(t, os.WriteFile(full, make([]byte, 1024), 0o600))
	b, err := Read(full, 1024)
	require.NoError(t, err)
	assert.Len(t, b, 1024)

	assert.Equal(t, "4 MiB", Size(Credentials))
	assert.Equal(t, "1 MiB", Size(Token))
	assert.Equal(t, "64 MiB", Size(Offsets))
}

func TestReplaceableOnlyForRegularFilesOrNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	toFile, toFIFO := filepath.Join(dir, "to-file"), filepath.Join(dir, "to-fifo")
	require.NoError(t, os.Symlink(file, toFile))
	require.NoError(t, os.Symlink(fifo, toFIFO))
	for _, ok := range []string{file, toFile, filepath.Join(dir, "none")} {
		assert.NoError(t, Replaceable(ok), ok)
	}
	for path, kind := range map[string]string{fifo: "a named pipe (FIFO)", toFIFO: "a named pipe (FIFO)", dir: "a directory", "/dev/null": "a device"} {
		err := Replaceable(path)
		require.ErrorIs(t, err, ErrNotRegular, path)
		assert.EqualError(t, err, path+" is "+kind+", not a regular file: kadmin-lua writes this file whole, by renaming a new file over it")
	}
}
