package vocab

import (
	"cmp"
	"slices"
)

// SortedKeys is m's keys in order: nil for an empty map, one allocation
// otherwise (slices.Sorted(maps.Keys(m)) allocates its iterators and grows
// its slice: a quarter of alter_configs' allocations went to sorting maps
// of one key).
func SortedKeys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	if len(m) == 0 {
		return nil
	}
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
