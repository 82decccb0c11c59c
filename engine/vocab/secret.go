package vocab

import "fmt"

// Secret is a string that never prints: fmt, %v, JSON and errors all show
// "***", so passwords cannot leak into output, logs or the audit log.
type Secret string

func (Secret) String() string                 { return "***" }
func (Secret) GoString() string               { return `"***"` }
func (Secret) MarshalJSON() ([]byte, error)   { return []byte(`"***"`), nil }
func (s Secret) Reveal() string               { return string(s) }
func (Secret) Format(f fmt.State, verb rune)  { _, _ = f.Write([]byte("***")) }
func (s Secret) MarshalText() ([]byte, error) { return []byte("***"), nil }
