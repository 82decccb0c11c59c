package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"unsafe"
)

// clearStartEnviron clears the values of names in the environment the
// process started with: the block of NAME=VALUE strings the kernel put on
// the initial stack at exec, which /proc/PID/environ shows to this process
// and to every other of the same user. The Go runtime copied it at start
// (os.Getenv does not read it), so overwriting it changes what /proc shows
// and nothing the program reads.
//
// The kernel says where the block is (/proc/self/stat: arg_start,
// env_start, env_end); Go says where the arguments are (os.Args[0] points
// at argv[0]'s bytes, which the runtime did not copy). The block is
// reached from argv[0] and only when both agree on where the arguments
// start, so a layout other than the one expected is an error, never a
// write elsewhere.
func clearStartEnviron(names map[string]bool) error {
	argStart, envStart, envEnd, err := startBlocks()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no procfs: nothing shows the block
	}
	if err != nil {
		return err
	}
	if len(os.Args) == 0 {
		return errors.New("the process has no argv[0] to find its environment from")
	}
	arg0 := unsafe.StringData(os.Args[0])
	if arg0 == nil || uintptr(unsafe.Pointer(arg0)) != argStart {
		return errors.New("argv[0] is not where the kernel says the arguments start")
	}
	if envStart < argStart || envEnd <= envStart {
		return fmt.Errorf("unexpected layout: arguments at %#x, environment %#x-%#x", argStart, envStart, envEnd)
	}
	block := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(arg0), envStart-argStart)), envEnd-envStart)
	if block[len(block)-1] != 0 {
		return errors.New("the environment block does not end with a NUL")
	}
	clearValues(block, names)
	return nil
}

// startBlocks reads from /proc/self/stat where the arguments start and
// where the environment starts and ends (proc(5): fields 48, 50 and 51).
func startBlocks() (argStart, envStart, envEnd uintptr, err error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, 0, err
	}
	// Field 2, the command's name in parentheses, may hold spaces and
	// parentheses itself: the fields after it start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, errors.New("/proc/self/stat: no command name")
	}
	fields := bytes.Fields(b[i+1:]) // fields[0] is field 3
	field := func(n int) (uintptr, error) {
		if n-3 >= len(fields) {
			return 0, fmt.Errorf("/proc/self/stat has no field %d (Linux before 3.5)", n)
		}
		v, err := strconv.ParseUint(string(fields[n-3]), 10, 64)
		return uintptr(v), err
	}
	if argStart, err = field(48); err == nil {
		if envStart, err = field(50); err == nil {
			envEnd, err = field(51)
		}
	}
	return argStart, envStart, envEnd, err
}
