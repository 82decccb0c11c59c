package clientconfig

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseProperties reads a Java .properties file: key=value, key: value or
// key value lines, # and ! comments, backslash line continuation and the
// \t \n \r \f \uXXXX escapes. Later keys win.
func ParseProperties(r io.Reader) (map[string]string, error) {
	out, _, err := parsePropertiesLines(r)
	return out, err
}

// parsePropertiesLines is ParseProperties that also says on which lines
// each key was given (where its logical line starts), in order.
func parsePropertiesLines(r io.Reader) (map[string]string, map[string][]int, error) {
	out := map[string]string{}
	lines := map[string][]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	lineNo := 0
	var logical strings.Builder
	start := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if logical.Len() == 0 {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
		} else {
			line = strings.TrimLeft(line, " \t\f")
		}
		if continues(line) {
			logical.WriteString(line[:len(line)-1])
			continue
		}
		logical.WriteString(line)
		k, v, err := splitProperty(logical.String())
		logical.Reset()
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %v", start, err)
		}
		out[k] = v
		lines[k] = append(lines[k], start)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if logical.Len() > 0 {
		k, v, err := splitProperty(logical.String())
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %v", start, err)
		}
		out[k] = v
		lines[k] = append(lines[k], start)
	}
	return out, lines, nil
}

// meaningful reports whether kadmin-lua reads a client.properties key:
// the connection and security settings (bootstrap.servers, client.id,
// security.protocol, sasl.*, ssl.*). A producer's or consumer's settings
// are ignored, so their duplicates are too.
func meaningful(key string) bool {
	switch key {
	case "bootstrap.servers", "client.id", "security.protocol":
		return true
	}
	return strings.HasPrefix(key, "sasl.") || strings.HasPrefix(key, "ssl.")
}

// duplicateProperty is the first meaningful key given twice, with the
// first two lines it is on (by line): Java keeps the last silently.
func duplicateProperty(lines map[string][]int) (key string, first, second int, dup bool) {
	for k, ls := range lines {
		if len(ls) > 1 && meaningful(k) && (!dup || ls[1] < second) {
			key, first, second, dup = k, ls[0], ls[1], true
		}
	}
	return key, first, second, dup
}

// continues reports whether a line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func splitProperty(s string) (key, value string, err error) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	rawKey := s[:min(i, len(s))]
	rest := ""
	if i < len(s) {
		rest = strings.TrimLeft(s[i:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
	}
	key, err = unescapeProperty(rawKey)
	if err != nil {
		return "", "", err
	}
	value, err = unescapeProperty(rest)
	if err != nil {
		// Never quote the value: it may be a password.
		return "", "", fmt.Errorf("%s: %v", key, err)
	}
	return key, value, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", errors.New(`malformed \uXXXX escape`)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", errors.New(`malformed \uXXXX escape`)
			}
			var buf [4]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], rune(n))])
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// SplitList splits a comma-separated list, trimming spaces and dropping
// empty entries: "a:9092, b:9092" -> [a:9092 b:9092].
func SplitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
