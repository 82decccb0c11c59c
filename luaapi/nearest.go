package luaapi

import (
	"slices"
	"strings"
)

// NearestFunc is the declared function or alias nearest to name, for a
// "did you mean" hint (kadmin-lua doc NAME); a library function may be
// named without its "kafka." prefix, as doc and help accept it. "" when
// nothing is near enough to be a likely typo.
func NearestFunc(name string) string {
	if name == "" {
		return ""
	}
	var candidates []string
	short := map[string]string{}
	for n := range registry {
		candidates = append(candidates, n)
		if s, ok := strings.CutPrefix(n, "kafka."); ok && registry[s] == nil {
			short[s] = n
			candidates = append(candidates, s)
		}
	}
	slices.Sort(candidates)
	best := suggest(name, candidates)
	if full, ok := short[best]; ok && !strings.HasPrefix(name, "kafka.") {
		return full
	}
	return best
}
