package engine

import (
	"slices"
	"strings"
)

// compareTP orders by topic, then partition: the order of every result.
func compareTP(a, b TopicPartition) int {
	return comparePartition(a.Topic, a.Partition, b.Topic, b.Partition)
}

// comparePartition is compareTP for records that hold their own topic and
// partition fields.
func comparePartition(at string, ap int32, bt string, bp int32) int {
	if c := strings.Compare(at, bt); c != 0 {
		return c
	}
	return int(ap) - int(bp)
}

// RepeatedPartition is the first partition that two of items name, if
// any. A batch naming one partition twice is refused, everywhere (which
// of its rows would win?): luaapi before anything is sent, with the
// argument's path; the engine for Go callers, with ErrGivenTwice.
func RepeatedPartition[T any](items []T, key func(T) TopicPartition) (TopicPartition, bool) {
	seen := make(map[TopicPartition]bool, len(items))
	for _, it := range items {
		k := key(it)
		if seen[k] {
			return k, true
		}
		seen[k] = true
	}
	return TopicPartition{}, false
}

// ErrGivenTwice refuses a batch that names tp twice.
func ErrGivenTwice(tp TopicPartition) *Error {
	return Errorf(CodeInvalidArgument, tp.String(), "%s is given twice", tp)
}

// uniqueTPs indexes items by partition, in topic and partition order; a
// partition given twice is refused (ErrGivenTwice).
func uniqueTPs[T any](items []T, key func(T) TopicPartition) (map[TopicPartition]T, []TopicPartition, error) {
	if k, dup := RepeatedPartition(items, key); dup {
		return nil, nil, ErrGivenTwice(k)
	}
	by := make(map[TopicPartition]T, len(items))
	keys := make([]TopicPartition, 0, len(items))
	for _, it := range items {
		k := key(it)
		by[k] = it
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareTP)
	return by, keys, nil
}
