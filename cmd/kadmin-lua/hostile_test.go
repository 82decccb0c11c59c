package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
)

// hostile is one name carrying everything that can drive a terminal or
// forge a line: C0 (ESC, BEL, CR, LF), C1 CSI (U+009B), a bidi override
// and isolate, zero-width characters, a byte that is not UTF-8.
const hostile = "ev\x1b[2J\u009b1m\u202e\u2066\u200b\ufeff\a\r\nil\xff"

// luaLiteral is s as a Lua string literal of decimal escapes.
func luaLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\%d`, s[i])
	}
	return b.String() + `"`
}

// rawControl names the first character of out a terminal would obey, or
// "" when there is none: C0 but newline and tab, DEL, C1, bidi controls,
// zero-width and line-separator characters, bytes that are not UTF-8.
func rawControl(out string) string {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("byte %#x at %d", out[i], i)
		case r < 0x20 && r != '\n' && r != '\t', r >= 0x7f && r <= 0x9f,
			r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x2028, r == 0x2029, r == 0xfeff:
			return fmt.Sprintf("%U at %d", r, i)
		}
		i += size
	}
	return ""
}

// One escaping rule for every printer: the hostile name goes through each
// and comes out with nothing a terminal obeys, and, where the printer
// writes lines (tables, logs, plans, headers, summaries), on one line.
func TestEveryPrinterEscapesOneHostileName(t *testing.T) {
	cl := newCluster(t)
	plugins := testfiles.Tree(t, map[string]string{"evil.lua": fmt.Sprintf(`local h = %s
return {description = h, version = h,
  functions = {f = {summary = h, args = h, doc = h, fn = function() end}},
  commands = {c = {summary = h, usage = h, run = function() end}}}`, luaLiteral(hostile))})
	forged := filepath.Join(t.TempDir(), "forged.jsonl")
	id, _ := json.Marshal(hostile)
	require.NoError(t, os.WriteFile(forged, []byte(fmt.Sprintf(
		`{"type":"intent","id":%s,"op":%s,"args":{"specs":[{"name":"x"}]}}`+"\n", id, id)), 0o600))
	profile, _ := json.Marshal(hostile)
	fleetScript := writeFile(t, "fleet.lua", `io.stderr:write("to stderr\n") kafka.fail(kafka.env("H"))`)

	const e = `kafka.env("H")`
	for _, tc := range []struct {
		name   string
		args   []string
		config string // a config file for the run
		stream string // "stdout" or "stderr"
		lines  bool   // the printer writes lines: the name's LF must not start one
	}{
		{name: "table", args: []string{"-e", "return {{name = " + e + ", n = 1}}"}, stream: "stdout", lines: true},
		{name: "nested table", args: []string{"-e", "return {{name = " + e + ", sub = {{x = " + e + "}}}}"}, stream: "stdout", lines: true},
		{name: "lua literal", args: []string{"-e", "return {name = " + e + "}"}, stream: "stdout", lines: true},
		{name: "json", args: []string{"-o", "json", "-e", "return {{name = " + e + "}}"}, stream: "stdout", lines: true},
		{name: "ndjson", args: []string{"-o", "ndjson", "-e", "return {{name = " + e + "}}"}, stream: "stdout", lines: true},
		{name: "yaml", args: []string{"-o", "yaml", "-e", "return {{name = " + e + ":sub(1, -2)}}"}, stream: "stdout", lines: true},
		{name: "kafka.pp", args: []string{"-e", "kafka.pp({name = " + e + "})"}, stream: "stdout", lines: true},
		{name: "log line", args: []string{"-e", "kafka.log.warn{msg = " + e + ", group = " + e + "}"}, stream: "stderr", lines: true},
		{name: "log line of a string", args: []string{"-e", "kafka.log.error(" + e + ")"}, stream: "stderr", lines: true},
		{name: "failed check", args: []string{"-e", "kafka.check(false, " + e + ")"}, stream: "stderr", lines: true},
		{name: "error message", args: []string{"-e", "error(" + e + ")"}, stream: "stderr"},
		{name: "dry-run plan", args: []string{"-b", cl.addrs, "--dry-run", "-e", "delete_groups{" + e + "}"}, stream: "stderr", lines: true},
		{name: "undo table", args: []string{"-b", cl.addrs, "--dry-run", "undo", forged}, stream: "stdout", lines: true},
		{name: "plugins", args: []string{"--plugin-path", plugins, "plugins"}, stream: "stdout"},
		{name: "help(plugin fn)", args: []string{"--plugin-path", plugins, "-e", "help(f)"}, stream: "stdout"},
		{name: "help index", args: []string{"--plugin-path", plugins, "-e", "help()"}, stream: "stdout"},
		{name: "plugin command help", args: []string{"--plugin-path", plugins, "run", "c", "--help"}, stream: "stdout"},
		{name: "fleet header", args: []string{"run", "--profiles", "ev*", fleetScript},
			config: fmt.Sprintf(`{"profiles": {%s: {"brokers": [%q]}}}`, profile, cl.addrs), stream: "stdout", lines: true},
		{name: "fleet summary and stderr", args: []string{"run", "--profiles", "ev*", fleetScript},
			config: fmt.Sprintf(`{"profiles": {%s: {"brokers": [%q]}}}`, profile, cl.addrs), stream: "stderr", lines: true},
		{name: "fleet json", args: []string{"-o", "json", "run", "--profiles", "ev*", fleetScript},
			config: fmt.Sprintf(`{"profiles": {%s: {"brokers": [%q]}}}`, profile, cl.addrs), stream: "stdout", lines: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			c.env["H"] = hostile
			if tc.config != "" {
				writeConfig(t, c, tc.config)
			}
			code := c.run(tc.args...)
			out := c.stdout.String()
			if tc.stream == "stderr" {
				out = c.stderr.String()
			}
			require.Contains(t, out, "ev", "the printer printed the name (exit %d):\n%s\n%s", code, c.stdout.String(), c.stderr.String())
			assert.Empty(t, rawControl(out), "raw in %q", out)
			if tc.lines {
				for _, l := range strings.Split(out, "\n") {
					assert.False(t, strings.HasPrefix(l, "il"), "the name's newline started a line: %q", out)
				}
			}
		})
	}
}

// Every file kadmin-lua reads is a regular file within its cap: a FIFO is
// refused at once (not waited on), /dev/zero and a directory are refused,
// a file over the cap is refused; each error names the file.
func TestEveryFileReadIsBoundedAndRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sub := filepath.Join(dir, "a-directory")
	require.NoError(t, os.Mkdir(sub, 0o700))
	// sized makes a sparse file of n bytes: over a cap without writing it.
	sized := func(name string, n int64) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, nil, 0o600))
		require.NoError(t, os.Truncate(p, n))
		return p
	}
	closed := closedPort(t)
	kerberos := func(keytab, krb5 string) string {
		return fmt.Sprintf(`{"profiles": {"p": {"brokers": [%q], "sasl": {"mechanism": "GSSAPI", "kerberos": {"principal": "admin@EXAMPLE.COM", "keytab": %q, "krb5_conf": %q}}}}}`, closed, keytab, krb5)
	}
	krb5 := writeFile(t, "krb5.conf", "[libdefaults]\n  default_realm = EXAMPLE.COM\n")
	plugin := func(bad string) string { // a plugin directory whose ops.lua is bad
		d := filepath.Join(t.TempDir(), "plugins")
		require.NoError(t, os.Mkdir(d, 0o700))
		require.NoError(t, os.Symlink(bad, filepath.Join(d, "ops.lua")))
		return d
	}
	for _, rd := range []struct {
		name string
		cap  int64
		args func(path string) (args []string, config string)
	}{
		{"config file", 4 << 20, func(p string) ([]string, string) {
			return []string{"--config", p, "--profile", "p", "-e", "return 1"}, ""
		}},
		{"client.properties", 4 << 20, func(p string) ([]string, string) { return []string{"--command-config", p, "-e", "return 1"}, "" }},
		{"TLS CA file", 4 << 20, func(p string) ([]string, string) {
			return []string{"-b", closed, "--tls-ca", p, "-e", "list_topics()"}, ""
		}},
		{"keytab", 4 << 20, func(p string) ([]string, string) {
			return []string{"--profile", "p", "-e", "list_topics()"}, kerberos(p, krb5)
		}},
		{"krb5.conf", 4 << 20, func(p string) ([]string, string) {
			return []string{"--profile", "p", "-e", "list_topics()"}, kerberos(p, p)
		}},
		{"audit log for undo", -1, func(p string) ([]string, string) { return []string{"-b", closed, "undo", p}, "" }},
		{"offsets file", 64 << 20, func(p string) ([]string, string) {
			return []string{"-b", closed, "--dry-run", "-e", fmt.Sprintf(`reset_offsets{group = "g", to = {file = %q}}`, p)}, ""
		}},
		{"webhook token file", 1 << 20, func(p string) ([]string, string) {
			return []string{"-e", fmt.Sprintf(`kafka.notify{url = "http://127.0.0.1:1/x", token_file = %q, key = "k", summary = "s"}`, p)}, ""
		}},
		{"plugin", 16 << 20, func(p string) ([]string, string) { return []string{"--plugin-path", plugin(p), "-e", "return 1"}, "" }},
	} {
		bad := map[string]string{
			"fifo":      fifo,
			"/dev/zero": "/dev/zero",
			"directory": sub,
		}
		if rd.cap > 0 {
			bad["over the cap"] = sized(strings.ReplaceAll(rd.name, " ", "-")+".big", rd.cap+1)
		}
		for kind, path := range bad {
			t.Run(rd.name+"/"+kind, func(t *testing.T) {
				c := newCLI(t)
				args, config := rd.args(path)
				if config != "" {
					writeConfig(t, c, config)
				}
				began := time.Now()
				code := c.run(args...)
				assert.NotEqual(t, ExitOK, code)
				assert.Less(t, time.Since(began), 5*time.Second, "refused at once")
				msg := c.stderr.String()
				named := path
				if rd.name == "plugin" {
					named = "plugins/ops.lua" // the link in the plugin directory
				}
				assert.Contains(t, msg, named, "the error names the file")
				if kind == "over the cap" {
					assert.Contains(t, msg, "larger than")
				} else {
					assert.Contains(t, msg, "not a regular file")
				}
			})
		}
	}
}
