//go:build !linux

package luaapi

import "os"

// Only Linux's procfs is recognised: macOS has none, and the BSDs' procfs
// (rarely mounted) is not checked (docs/decisions.md, "Secrets sealed").

func pathOnProcFS(string) (bool, error) { return false, nil }

func fileOnProcFS(*os.File) (bool, error) { return false, nil }
