package luaapi

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// fitBlock cuts a block to a terminal of width x height (0: unknown): each
// line to the width, and the block to height-1 lines (the last one says
// how many were left out), so that redrawing it in place never scrolls.
func fitBlock(lines []string, width, height int) []string {
	if height > 1 && len(lines) > height-1 {
		keep := max(height-2, 1)
		left := len(lines) - keep
		lines = append(lines[:keep:keep], fmt.Sprintf("... %d more lines (a larger terminal shows them)", left))
	}
	if width > 0 {
		for i, l := range lines {
			lines[i] = fitLine(l, width)
		}
	}
	return lines
}

// fitLine cuts s to width columns (a rune is one column), leaving the
// terminal escapes it holds (ESC [ ... letter) whole and taking no room;
// a cut line ends with a reset, so that no style runs on.
func fitLine(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	var b strings.Builder
	cols, escaped, cut := 0, false, false
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			if j < len(s) {
				j++
			}
			b.WriteString(s[i:j])
			escaped = true
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if cols == width {
			cut = true
			break
		}
		b.WriteRune(r)
		cols++
		i += n
	}
	if escaped && cut {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}
