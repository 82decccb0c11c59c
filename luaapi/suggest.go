package luaapi

import "strings"

// suggest returns the candidate nearest to name, for "did you mean"
// hints: within an edit distance of 2 (or a third of name's length, for
// long names), or a candidate that name is a prefix of. "" when none is
// near enough to be a likely typo.
func suggest(name string, candidates []string) string {
	low := strings.ToLower(name)
	best, bestDist := "", -1
	limit := max(2, len(name)/3)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(low, strings.ToLower(c))
		if d > limit && !(len(low) >= 3 && strings.HasPrefix(strings.ToLower(c), low)) {
			continue
		}
		if bestDist < 0 || d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
