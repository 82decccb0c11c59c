package luaapi

import (
	"os"
	"syscall"
)

// procSuperMagic is procfs's f_type (linux/magic.h PROC_SUPER_MAGIC).
const procSuperMagic = 0x9fa0

// pathOnProcFS: the file name names (symbolic links followed) is on procfs.
func pathOnProcFS(name string) (bool, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(name, &st); err != nil {
		return false, err
	}
	return int64(st.Type) == procSuperMagic, nil
}

// fileOnProcFS: the open file f is on procfs. An error counts as a refusal
// for the caller: a file whose file system cannot be told is not opened.
func fileOnProcFS(f *os.File) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var st syscall.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil {
		return false, err
	}
	if serr != nil {
		return false, serr
	}
	return int64(st.Type) == procSuperMagic, nil
}
