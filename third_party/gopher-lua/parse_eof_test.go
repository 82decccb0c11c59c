package lua

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"
)

// Syntax errors at end of input must say on which line they are, in the
// same "line:N(column:M) near 'TOKEN'" format as every other parse error,
// and keep the word EOF so that a REPL can tell an incomplete chunk from a
// plain syntax error. The expected lines are the ones PUC Lua 5.1 reports.

func TestParseErrorAtEOFHasLine(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int
		col  int
		msg  string
	}{
		{"if_missing_end", "if x then\n  print(1)\n", 3, 1, "syntax error"},
		{"if_missing_end_no_trailing_newline", "if x then\n  print(1)", 2, 11, "syntax error"},
		{"assignment_missing_rhs", "x = ", 1, 5, "syntax error"},
		{"open_paren_blank_lines", "x = (1 +\n\n", 3, 1, "syntax error"},
		{"for_missing_end", "for i=1,2 do\n", 2, 1, "syntax error"},
		{"call_missing_paren", "print('a'", 1, 10, "syntax error"},
		{"binop_missing_operand", "x = 1 +", 1, 8, "syntax error"},
		{"table_constructor_open", "local t = {\n1,\n2,\n", 4, 1, "syntax error"},
		{"function_missing_end", "function f()\n\n\n\n", 5, 1, "syntax error"},
		{"crlf_line_endings", "while true do\r\n  x = 1\r\n", 3, 1, "syntax error"},
		{"trailing_comment", "if x then\n-- just a comment", 2, 18, "syntax error"},
		{"bare_expression", "x", 1, 2, "parse error"},
		{"unterminated_long_string", "x = [[abc\ndef", 2, 4, "unterminated multiline string"},
		{"unterminated_long_comment", "--[[ open\n\n", 3, 1, "invalid multiline comment"},
		{"unterminated_string", "x = \"abc", 1, 9, "unterminated string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse.Parse(strings.NewReader(c.src), "chunk")
			if err == nil {
				t.Fatalf("expected a syntax error for %q", c.src)
			}
			var perr *parse.Error
			if !errors.As(err, &perr) {
				t.Fatalf("expected *parse.Error, got %T: %v", err, err)
			}
			if perr.Pos.Line != c.line || perr.Pos.Column != c.col {
				t.Errorf("position: got line %d column %d, want line %d column %d",
					perr.Pos.Line, perr.Pos.Column, c.line, c.col)
			}
			if perr.Token != "EOF" {
				t.Errorf("token: got %q, want %q", perr.Token, "EOF")
			}
			if perr.Message != c.msg {
				t.Errorf("message: got %q, want %q", perr.Message, c.msg)
			}
			want := "chunk line:" + strconv.Itoa(c.line) + "(column:" + strconv.Itoa(c.col) + ") near 'EOF':   " + c.msg + "\n"
			if got := err.Error(); got != want {
				t.Errorf("Error(): got %q, want %q", got, want)
			}
			if strings.Contains(err.Error(), "at EOF") {
				t.Errorf("old line-less format still used: %q", err.Error())
			}
		})
	}
}

// The line must reach the API users see: LState.LoadString / DoString and
// loadstring() inside Lua.
func TestParseErrorAtEOFThroughAPI(t *testing.T) {
	L := NewState()
	defer L.Close()

	src := "if x then\n  print(1)\n"
	_, err := L.LoadString(src)
	if err == nil {
		t.Fatal("LoadString: expected a syntax error")
	}
	var aerr *ApiError
	if !errors.As(err, &aerr) || aerr.Type != ApiErrorSyntax {
		t.Fatalf("LoadString: expected ApiErrorSyntax, got %T %v", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "line:3(") || !strings.Contains(msg, "EOF") {
		t.Errorf("LoadString: message lacks line 3 or EOF: %q", msg)
	}

	if err := L.DoString(src); err == nil || !strings.Contains(err.Error(), "line:3(") {
		t.Errorf("DoString: message lacks line 3: %v", err)
	}

	if err := L.DoString(`
local f, msg = loadstring("for i = 1, 3 do\n  x = i\n", "=snippet")
assert(f == nil)
assert(string.find(msg, "line:3%(column:1%) near 'EOF'", 1), msg)
`); err != nil {
		t.Errorf("loadstring: %v", err)
	}
}

// Errors that are not at end of input keep their previous, token-based
// message, and a complete chunk still parses.
func TestParseErrorNotAtEOFUnchanged(t *testing.T) {
	cases := []struct {
		src  string
		want string
	}{
		{"x = = 1", "chunk line:1(column:5) near '=':   syntax error\n"},
		{"local a = 1\nlocal b = )\nreturn a", "chunk line:2(column:11) near ')':   syntax error\n"},
		{"x = \"abc\ny = 1", "chunk line:2(column:0) near 'abc':   unterminated string\n"},
	}
	for _, c := range cases {
		_, err := parse.Parse(strings.NewReader(c.src), "chunk")
		if err == nil {
			t.Errorf("%q: expected a syntax error", c.src)
			continue
		}
		if got := err.Error(); got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
		if strings.Contains(err.Error(), "EOF") {
			t.Errorf("%q: error not at end of input mentions EOF: %q", c.src, err.Error())
		}
	}

	for _, src := range []string{"", "\n\n", "-- only a comment", "return 1", "if x then\n  print(1)\nend\n"} {
		if _, err := parse.Parse(strings.NewReader(src), "chunk"); err != nil {
			t.Errorf("%q: unexpected error %v", src, err)
		}
	}
}

// Line numbers of a complete chunk are unaffected (runtime errors still
// point at the right line, also on the last line without a newline).
func TestRuntimeErrorLineAfterEOFChange(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString("local a = 1\nlocal b = 2\nerror('boom')")
	if err == nil || !strings.Contains(err.Error(), "<string>:3: boom") {
		t.Errorf("got %v, want an error at <string>:3", err)
	}
}
