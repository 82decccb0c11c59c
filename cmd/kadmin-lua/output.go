package main

import (
	"encoding/json"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// jsonLines: a fleet writes one compact JSON line per cluster under -o json
// and -o ndjson alike.
func (f *globalFlags) jsonLines() bool { return f.output == "json" || f.output == "ndjson" }

// printData writes v, the data of a command that prints its own text under
// -o table (version, undo, runbooks, plugins), as -o json, ndjson or yaml
// asks, and reports whether it did. json is encoding/json's, indented;
// ndjson and yaml go through the printers of returned values
// (luaapi.FormatGo), so their keys, quoting and escaping are the same.
func (a *app) printData(cmd string, v any) (bool, error) {
	var text string
	switch a.flags.output {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return true, exitf(ExitScript, "%s: %v", cmd, err)
		}
		text = string(luaapi.EscapeJSON(b)) + "\n"
	case "ndjson", "yaml":
		s, err := luaapi.FormatGo(v, a.flags.output)
		if err != nil {
			return true, exitf(ExitScript, "%s: %v", cmd, err)
		}
		text = s
	default:
		return false, nil
	}
	return true, writeText(a.st.Stdout, text)
}
