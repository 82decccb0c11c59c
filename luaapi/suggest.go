package luaapi

import (
	"strings"
)

// suggest returns the candidate that name most likely misspells, or "" when
// none is close: "lagg" -> "lag", "list_topic" -> "list_topics",
// "valdiate_only" -> "validate_only". Close means at most two edits
// (insert, delete, replace, or swap two neighbours; case is ignored), but
// no more than half of name's length, so short names do not match
// everything; or name is the start of the candidate ("describe_t" ->
// "describe_topics"), when name has at least three letters. The fewest
// edits win, then a prefix match, then the shorter candidate, then the
// first in alphabetical order, so the answer never depends on the order of
// candidates.
func suggest(name string, candidates []string) string {
	if name == "" {
		return ""
	}
	lname := strings.ToLower(name)
	maxEdits := min(2, len([]rune(name))/2)
	best, bestScore := "", 0
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		lc := strings.ToLower(c)
		score := -1
		if d, ok := editDistance(lname, lc, maxEdits); ok {
			score = d
		} else if len(lname) >= 3 && strings.HasPrefix(lc, lname) {
			score = maxEdits + 1
		}
		if score < 0 {
			continue
		}
		if best == "" || score < bestScore ||
			(score == bestScore && (len(c) < len(best) || (len(c) == len(best) && c < best))) {
			best, bestScore = c, score
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein plus swaps of neighbouring letters), by rune. ok is false
// when it is over limit; it stops early then.
func editDistance(a, b string, limit int) (int, bool) {
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > limit {
		return 0, false
	}
	// Three rows of the dynamic-programming table: two back for swaps.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return 0, false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	d := prev[len(rb)]
	return d, d <= limit
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
