package clientconfig

import (
	"bytes"
	"encoding/json"
	"strings"
)

// duplicateKey finds the first key given twice in one JSON object of b
// (encoding/json keeps the last silently: a profile defined twice would
// take its second definition without a word). It returns the key's path
// ("profiles.prod") and the line of its second appearance; ok is false
// when every object's keys are distinct, or b is not JSON (the decoder
// says why then).
func duplicateKey(b []byte) (path string, line int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object  bool
		seen    map[string]bool
		key     string // the key whose value is being read
		wantKey bool
	}
	var stack []*frame
	var names []string // the path to the value being read
	for {
		offset := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", 0, false
		}
		top := func() *frame {
			if len(stack) == 0 {
				return nil
			}
			return stack[len(stack)-1]
		}
		if k, isKey := tok.(string); isKey && top() != nil && top().object && top().wantKey {
			f := top()
			if f.seen[k] {
				rest := b[offset:]
				at := offset + int64(bytes.IndexByte(rest, '"'))
				return strings.Join(append(names, k), "."), 1 + bytes.Count(b[:max(at, 0)], []byte("\n")), true
			}
			f.seen[k], f.key, f.wantKey = true, k, false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if f := top(); f != nil && f.object {
				names = append(names, f.key)
			}
			stack = append(stack, &frame{object: tok == json.Delim('{'), seen: map[string]bool{}, wantKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if f := top(); f != nil && f.object && len(names) > 0 {
				names = names[:len(names)-1]
			}
		}
		if f := top(); f != nil && f.object {
			f.wantKey = true // a value was read: the next token is a key
		}
	}
}
