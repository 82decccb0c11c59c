//go:build !linux

package main

// clearStartEnviron does nothing outside Linux, where it is not tested:
// macOS, for one, still shows the environment a process started with to
// processes of the same user (ps -E, sysctl KERN_PROCARGS2). The secrets
// are still removed from the Go environment (docs/decisions.md).
func clearStartEnviron(map[string]bool) error { return nil }
