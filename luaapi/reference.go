package luaapi

// ReferenceMarkdown renders docs/api.md from the declarations. (Stub.)
func ReferenceMarkdown() string { return "" }

// ReferenceJSON renders the declarations as JSON for `kadmin-lua doc --json`. (Stub.)
func ReferenceJSON() ([]byte, error) { return []byte("[]"), nil }
