package luaapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// The REPL's question before a destructive call is read at 3 a.m.: it must
// say what happens and where at a glance. A short call is asked as it was
// typed, on one line:
//
//	delete_topics(["doomed"]) on cluster kfake (127.0.0.1:9092)? [y/N]
//
// A long one (a reassignment plan of hundreds of partitions, delete_topics
// of a generated list) is summarised: a line per argument with its counts
// (partitions per topic), the first few items and "and N more", then the
// path of a file (0600) with the full arguments as JSON, and the question:
//
//	alter_partition_reassignments on cluster kfake (127.0.0.1:9092)
//	  rows: {leader_changes=3, moves=45, partitions=45 partitions}
//	    partitions: 45 partitions of 2 topics: orders 30, payments 15
//	    {"current":[0,1],"partition":0,"target":[1,2],"topic":"orders"}
//	    ... (5 in all)
//	    and 40 more
//	  full arguments: /tmp/kadmin-lua-confirm-123.json
//	alter_partition_reassignments(45 partitions) on cluster kfake (127.0.0.1:9092)
//
// Under --verbose the full arguments are printed instead of the file. The
// arguments are redacted (SecretArgs, redact.Value) before any of this,
// and the REPL escapes what it prints (TerminalText).

const (
	confirmLineMax = 160 // a call whose compact form is longer is summarised
	confirmItems   = 5   // items shown of a long array
	confirmItemMax = 120 // one shown item, compacted, cut beyond this
	confirmKinds   = 5   // topics named in a count
)

// confirmQuestion builds the question for call name on target from its
// redacted arguments. verbose prints the arguments in full; otherwise a
// cut summary writes them to a file (writeFull, which returns its path).
// labels name the arguments (the declaration's parameters, "options").
func confirmQuestion(name, target string, labels []string, args []any, verbose bool, writeFull func([]any) (string, error)) string {
	compact := make([]string, len(args))
	n := 0
	for i, a := range args {
		compact[i] = output.CompactValue(a)
		n += len(compact[i]) + 2
	}
	if n <= confirmLineMax {
		return fmt.Sprintf("%s(%s) on %s", name, strings.Join(compact, ", "), target)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s\n", name, target)
	var heads []string
	for i, a := range args {
		s := summarize(a)
		heads = append(heads, s.head)
		label := fmt.Sprintf("#%d", i+1)
		if i < len(labels) {
			label = labels[i]
		}
		head := s.head
		if n, ok := strings.CutSuffix(head, " "+label); ok {
			head = n // "names: 45", not "names: 45 names"
		}
		fmt.Fprintf(&b, "  %s: %s\n", label, head)
		for _, l := range s.lines {
			b.WriteString("    " + l + "\n")
		}
	}
	switch {
	case verbose:
		fmt.Fprintf(&b, "  full arguments: %s\n", strings.Join(compact, ", "))
	case writeFull != nil:
		if path, err := writeFull(args); err == nil {
			fmt.Fprintf(&b, "  full arguments: %s\n", path)
		} else {
			fmt.Fprintf(&b, "  (the full arguments could not be written: %v; --verbose prints them)\n", err)
		}
	}
	fmt.Fprintf(&b, "%s(%s) on %s", name, strings.Join(heads, ", "), target)
	return b.String()
}

// summary is one argument, summarised: head says it in a few words, lines
// show its counts and first items.
type summary struct {
	head  string
	lines []string
}

func summarize(v any) summary {
	switch v := v.(type) {
	case []any:
		return summarizeArray(v)
	case map[string]any:
		if s := output.CompactValue(v); len(s) <= confirmItemMax {
			return summary{head: s}
		}
		var heads []string
		var lines []string
		keys := slices.Sorted(maps.Keys(v))
		if isArrayMap(v) {
			// {topic = count, ...}: count the keys, show the first.
			s := summarizeArray(mapEntries(v, keys))
			return summary{head: fmt.Sprintf("%d entries", len(v)), lines: s.lines}
		}
		for _, k := range keys {
			sub := summarize(v[k])
			heads = append(heads, k+"="+sub.head)
			for _, l := range sub.lines {
				lines = append(lines, k+": "+l)
			}
		}
		head := "{" + strings.Join(heads, ", ") + "}"
		return summary{head: head, lines: lines}
	default:
		return summary{head: cutText(output.CompactValue(v))}
	}
}

// isArrayMap: a table of many scalar entries ({orders=12, payments=6}),
// listed like an array rather than field by field.
func isArrayMap(m map[string]any) bool {
	if len(m) <= confirmItems {
		return false
	}
	for _, v := range m {
		switch v.(type) {
		case []any, map[string]any:
			return false
		}
	}
	return true
}

func mapEntries(m map[string]any, keys []string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + output.CompactValue(m[k])
	}
	return out
}

// summarizeArray counts an array's items, by topic when they are
// partitions, and shows the first few.
func summarizeArray(a []any) summary {
	s := summary{head: fmt.Sprintf("%d %s", len(a), itemNoun(a))}
	if c := topicCounts(a); c != "" {
		s.lines = append(s.lines, c)
	}
	for i, it := range a {
		if i == confirmItems {
			s.lines = append(s.lines, fmt.Sprintf("and %d more", len(a)-confirmItems))
			break
		}
		if str, ok := it.(string); ok && strings.Contains(str, "=") && !strings.HasPrefix(str, `"`) {
			s.lines = append(s.lines, cutText(str)) // a map entry from mapEntries
			continue
		}
		s.lines = append(s.lines, cutText(output.CompactValue(it)))
	}
	return s
}

// itemNoun names an array's items: partitions when they are {topic=,
// partition=} rows, else by what they hold.
func itemNoun(a []any) string {
	if len(a) == 0 {
		return "items"
	}
	m, ok := a[0].(map[string]any)
	switch {
	case ok && m["topic"] != nil && m["partition"] != nil:
		return "partitions"
	case ok && m["group"] != nil:
		return "groups"
	case ok && m["topic"] != nil:
		return "topics"
	case ok && m["name"] != nil:
		return "names"
	}
	if _, ok := a[0].(string); ok {
		return "names"
	}
	return "items"
}

// topicCounts is "45 partitions of 2 topics: orders 30, payments 15" for
// rows with a topic and partition, "" otherwise.
func topicCounts(a []any) string {
	counts := map[string]int{}
	for _, it := range a {
		m, ok := it.(map[string]any)
		if !ok || m["partition"] == nil {
			return ""
		}
		t, ok := m["topic"].(string)
		if !ok {
			return ""
		}
		counts[t]++
	}
	if len(counts) == 0 {
		return ""
	}
	topics := slices.Sorted(maps.Keys(counts))
	// The biggest first, then by name.
	slices.SortStableFunc(topics, func(x, y string) int { return counts[y] - counts[x] })
	var parts []string
	for i, t := range topics {
		if i == confirmKinds {
			parts = append(parts, fmt.Sprintf("and %d more topics", len(topics)-confirmKinds))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", quoteIfOdd(t), counts[t]))
	}
	return fmt.Sprintf("%d partition%s of %d topic%s: %s", len(a), plural(len(a)), len(topics), plural(len(topics)), strings.Join(parts, ", "))
}

// quoteIfOdd quotes a topic name that holds a space or comma, which would
// blur the list.
func quoteIfOdd(s string) string {
	if strings.ContainsAny(s, " ,") || s == "" {
		return output.QuoteLua(s)
	}
	return s
}

func cutText(s string) string {
	if len(s) <= confirmItemMax {
		return s
	}
	cut := confirmItemMax
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// writeConfirmArgs writes a call's (redacted) arguments as indented JSON
// to a new file only the user can read, and returns its path.
func writeConfirmArgs(args []any) (string, error) {
	f, err := os.CreateTemp("", "kadmin-lua-confirm-*.json") // mode 0600
	if err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(args, "", "  ")
	if err == nil {
		_, err = f.Write(append(data, '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// confirmArgs are the call's arguments as the question shows them:
// secrets replaced, then redacted.
func (r *Runtime) confirmArgs(c *Call) []any {
	args := r.callArgs(c)
	for i, a := range args {
		args[i] = redact.Value(a)
	}
	return args
}

// confirmText is confirmPrompt's question (dispatch.go).
func (r *Runtime) confirmText(c *Call) string {
	var labels []string
	for _, p := range c.Fn.Params {
		labels = append(labels, p.Name)
	}
	labels = append(labels, "options")
	return confirmQuestion(c.Fn.Name, c.h.confirmTarget(), labels, r.confirmArgs(c), c.h.cfg.Verbose != nil, writeConfirmArgs)
}
