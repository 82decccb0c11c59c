package lua

const defaultArrayCap = 32
const defaultHashCap = 32

type lValueArraySorter struct {
	L      *LState
	Fn     *LFunction
	Values []LValue
}

func (lv lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv lValueArraySorter) Swap(i, j int) {
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv lValueArraySorter) Less(i, j int) bool {
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

// A table's string keys live in one of two places. While there are at most
// smallMax of them and no other hash keys, they sit with their values in
// tb.small, in insertion order, and are found by a linear search: a record
// with a handful of fields then costs one small slice instead of two maps
// and a key list (three maps of 32 slots each, before). Past that, or at
// the first key that is neither an array index nor a string, the table
// moves them to strdict, keys and k2i and stays there. Iteration order is
// insertion order in both forms; a key set to nil keeps its place (as
// keys/k2i always did), so next() can go on from it.
const smallMax = 12

// tableKV is one string key (always an LString) and its value.
type tableKV struct {
	key, value LValue
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	tb := &LTable{}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	switch {
	case hcap > smallMax:
		tb.strdict = make(map[string]LValue, hcap)
	case hcap != 0:
		tb.small = make([]tableKV, 0, hcap)
	}
	return tb
}

// NewRecordTables returns n empty tables with room for nkeys string keys
// each, made with two allocations in all (the tables, and their keys and
// values) rather than n times several: for turning a Go result of
// thousands of records into Lua tables. Use &tables[i]. A table given more
// keys later grows on its own. Records of more than smallMax fields get
// room for smallMax: most leave their optional fields out, and a table
// without room grew its keys from 4 by copying, record after record.
func NewRecordTables(n, nkeys int) []LTable {
	tables := make([]LTable, n)
	var slots []tableKV
	nkeys = min(nkeys, smallMax)
	if nkeys > 0 {
		slots = make([]tableKV, n*nkeys)
	}
	for i := range tables {
		tables[i].Metatable = LNil
		if slots != nil {
			tables[i].small = slots[i*nkeys : i*nkeys : (i+1)*nkeys]
		}
	}
	return tables
}

// NewArrayTables returns len(lens) empty tables, table i with room for
// lens[i] array elements, made with two allocations in all (the tables,
// and their elements) rather than two each: for the arrays of many records
// (a partition's replicas). Each table's room is its own (an append past
// it moves that table's elements elsewhere). Use &tables[i].
func NewArrayTables(lens []int) []LTable {
	tables := make([]LTable, len(lens))
	total := 0
	for _, n := range lens {
		total += n
	}
	var slots []LValue
	if total > 0 {
		slots = make([]LValue, total)
	}
	at := 0
	for i, n := range lens {
		tables[i].Metatable = LNil
		if n > 0 {
			tables[i].array = slots[at : at : at+n]
			at += n
		}
	}
	return tables
}

// A lazy array is a table whose n elements are made on first use: a
// converter hands a script a topic's million-row partition list without
// making it, and a script that only asks #t.partitions, or never looks,
// never pays for it. Every method that reads or writes the table's
// contents makes them first (materialize), so Lua code, the table library
// and Go callers see an ordinary table; Len and MaxN answer n without
// making them, which is what the elements will give (fill must set
// exactly 1..n, none nil).
type lazyFill struct {
	n    int
	fill func(tb *LTable)
}

// NewLazyArray returns a table standing for an array of n non-nil
// elements, which fill sets (RawSetInt 1..n) on the table's first use.
// fill runs once, on the goroutine that uses the table, and must not
// fail; what it reads must not change after this call.
func NewLazyArray(n int, fill func(tb *LTable)) *LTable {
	tb := &LTable{Metatable: LNil}
	if n > 0 {
		tb.lazy = &lazyFill{n: n, fill: fill}
	}
	return tb
}

// materialize makes a lazy table's contents (NewLazyArray). The marker is
// cleared first: fill writes through the ordinary methods.
func (tb *LTable) materialize() {
	lz := tb.lazy
	tb.lazy = nil
	tb.array = make([]LValue, 0, lz.n)
	lz.fill(tb)
}

// KeyCounts returns how many non-nil values the array part holds, and how
// many keys the table has besides (string keys, and numbers that are not
// array indices), without iterating: ForEach and Next box every array
// index they pass. A table whose array count equals Len() and whose other
// count is 0 has exactly the keys 1..n.
func (tb *LTable) KeyCounts() (array, other int) {
	if tb.lazy != nil {
		tb.materialize()
	}
	for _, v := range tb.array {
		if v != LNil {
			array++
		}
	}
	for _, kv := range tb.small {
		if kv.value != LNil {
			other++
		}
	}
	return array, other + len(tb.strdict) + len(tb.dict)
}

// smallIndex is the position of key in tb.small, or -1.
func (tb *LTable) smallIndex(key string) int {
	for i := range tb.small {
		if string(tb.small[i].key.(LString)) == key {
			return i
		}
	}
	return -1
}

// isSmall reports whether the string keys are in tb.small (no maps yet).
func (tb *LTable) isSmall() bool { return tb.strdict == nil && tb.dict == nil }

// promote moves the string keys from tb.small to strdict, keys and k2i,
// in the same order.
func (tb *LTable) promote() {
	tb.strdict = make(map[string]LValue, max(defaultHashCap, 2*len(tb.small)))
	tb.keys = make([]LValue, 0, max(len(tb.small)+1, 2*len(tb.small)))
	tb.k2i = make(map[LValue]int, max(defaultHashCap, 2*len(tb.small)))
	for _, kv := range tb.small {
		if kv.value != LNil {
			tb.strdict[string(kv.key.(LString))] = kv.value
		}
		tb.k2i[kv.key] = len(tb.keys)
		tb.keys = append(tb.keys, kv.key)
	}
	tb.small = nil
}

// Len returns length of this LTable without using __len.
func (tb *LTable) Len() int {
	if tb.lazy != nil {
		return tb.lazy.n
	}
	if tb.array == nil {
		return 0
	}
	var prev LValue = LNil
	for i := len(tb.array) - 1; i >= 0; i-- {
		v := tb.array[i]
		if prev == LNil && v != LNil {
			return i + 1
		}
		prev = v
	}
	return 0
}

// Append appends a given LValue to this LTable.
func (tb *LTable) Append(value LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if value == LNil {
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if len(tb.array) == 0 || tb.array[len(tb.array)-1] != LNil {
		tb.array = append(tb.array, value)
	} else {
		i := len(tb.array) - 2
		for ; i >= 0; i-- {
			if tb.array[i] != LNil {
				break
			}
		}
		tb.array[i+1] = value
	}
}

// Insert inserts a given LValue at position `i` in this table.
func (tb *LTable) Insert(i int, value LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if i > len(tb.array) {
		tb.RawSetInt(i, value)
		return
	}
	if i <= 0 {
		tb.RawSet(LNumber(i), value)
		return
	}
	i -= 1
	tb.array = append(tb.array, LNil)
	copy(tb.array[i+1:], tb.array[i:])
	tb.array[i] = value
}

// MaxN returns a maximum number key that nil value does not exist before it.
func (tb *LTable) MaxN() int {
	if tb.lazy != nil {
		return tb.lazy.n
	}
	if tb.array == nil {
		return 0
	}
	for i := len(tb.array) - 1; i >= 0; i-- {
		if tb.array[i] != LNil {
			return i + 1
		}
	}
	return 0
}

// Remove removes from this table the element at a given position.
func (tb *LTable) Remove(pos int) LValue {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.array == nil {
		return LNil
	}
	larray := len(tb.array)
	if larray == 0 {
		return LNil
	}
	i := pos - 1
	oldval := LNil
	switch {
	case i >= larray:
		// nothing to do
	case i == larray-1 || i < 0:
		oldval = tb.array[larray-1]
		tb.array = tb.array[:larray-1]
	default:
		oldval = tb.array[i]
		copy(tb.array[i:], tb.array[i+1:])
		tb.array[larray-1] = nil
		tb.array = tb.array[:larray-1]
	}
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				tb.array = make([]LValue, 0, defaultArrayCap)
			}
			index := int(v) - 1
			alen := len(tb.array)
			switch {
			case index == alen:
				tb.array = append(tb.array, value)
			case index > alen:
				for i := 0; i < (index - alen); i++ {
					tb.array = append(tb.array, LNil)
				}
				tb.array = append(tb.array, value)
			case index < alen:
				tb.array[index] = value
			}
			return
		}
	case LString:
		tb.setString(string(v), key, value)
		return
	}

	tb.RawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if key < 1 || key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, 32)
	}
	index := key - 1
	alen := len(tb.array)
	switch {
	case index == alen:
		tb.array = append(tb.array, value)
	case index > alen:
		for i := 0; i < (index - alen); i++ {
			tb.array = append(tb.array, LNil)
		}
		tb.array = append(tb.array, value)
	case index < alen:
		tb.array[index] = value
	}
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
func (tb *LTable) RawSetString(key string, value LValue) {
	tb.setString(key, nil, value)
}

// setString sets the string key; lkey, when not nil, is key already as an
// LValue (kept as it is, so that setting a key from a Lua constant or a
// converter's field name allocates nothing for the key).
func (tb *LTable) setString(key string, lkey LValue, value LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.isSmall() {
		if i := tb.smallIndex(key); i >= 0 {
			tb.small[i].value = value
			return
		}
		if value == LNil {
			return
		}
		if len(tb.small) < smallMax {
			if lkey == nil {
				lkey = LString(key)
			}
			if tb.small == nil {
				tb.small = make([]tableKV, 0, 4)
			}
			tb.small = append(tb.small, tableKV{lkey, value})
			return
		}
		tb.promote()
	}
	if tb.strdict == nil {
		tb.strdict = make(map[string]LValue, defaultHashCap)
	}
	if tb.keys == nil {
		tb.keys = []LValue{}
		tb.k2i = map[LValue]int{}
	}

	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		delete(tb.strdict, key)
	} else {
		tb.strdict[key] = value
		if lkey == nil {
			lkey = LString(key)
		}
		if _, ok := tb.k2i[lkey]; !ok {
			tb.k2i[lkey] = len(tb.keys)
			tb.keys = append(tb.keys, lkey)
		}
	}
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if s, ok := key.(LString); ok {
		tb.setString(string(s), key, value)
		return
	}
	if tb.isSmall() {
		tb.promote()
	}
	if tb.dict == nil {
		tb.dict = make(map[LValue]LValue, len(tb.strdict))
	}
	if tb.keys == nil {
		tb.keys = []LValue{}
		tb.k2i = map[LValue]int{}
	}

	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		delete(tb.dict, key)
	} else {
		tb.dict[key] = value
		if _, ok := tb.k2i[key]; !ok {
			tb.k2i[key] = len(tb.keys)
			tb.keys = append(tb.keys, key)
		}
	}
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	if tb.lazy != nil {
		tb.materialize()
	}
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				return LNil
			}
			index := int(v) - 1
			if index >= len(tb.array) {
				return LNil
			}
			return tb.array[index]
		}
	case LString:
		return tb.RawGetString(string(v))
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.array == nil {
		return LNil
	}
	index := int(key) - 1
	if index >= len(tb.array) || index < 0 {
		return LNil
	}
	return tb.array[index]
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if tb.lazy != nil {
		tb.materialize()
	}
	if s, sok := key.(LString); sok {
		return tb.RawGetString(string(s))
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.strdict == nil {
		if tb.small != nil {
			if i := tb.smallIndex(key); i >= 0 {
				return tb.small[i].value
			}
		}
		return LNil
	}
	if v, vok := tb.strdict[string(key)]; vok {
		return v
	}
	return LNil
}

// ForEach iterates over this table of elements, yielding each in turn to a given function.
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.array != nil {
		for i, v := range tb.array {
			if v != LNil {
				cb(LNumber(i+1), v)
			}
		}
	}
	for _, kv := range tb.small {
		if kv.value != LNil {
			cb(kv.key, kv.value)
		}
	}
	if tb.strdict != nil {
		for k, v := range tb.strdict {
			if v != LNil {
				cb(LString(k), v)
			}
		}
	}
	if tb.dict != nil {
		for k, v := range tb.dict {
			if v != LNil {
				cb(k, v)
			}
		}
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ).
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	if tb.lazy != nil {
		tb.materialize()
	}
	if tb.isSmall() {
		return tb.nextSmall(key)
	}
	init := false
	if key == LNil {
		key = LNumber(0)
		init = true
	}

	if init || key != LNumber(0) {
		if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && kv < LNumber(MaxArrayIndex) {
			index := int(kv)
			if tb.array != nil {
				for ; index < len(tb.array); index++ {
					if v := tb.array[index]; v != LNil {
						return LNumber(index + 1), v
					}
				}
			}
			if tb.array == nil || index == len(tb.array) {
				if (tb.dict == nil || len(tb.dict) == 0) && (tb.strdict == nil || len(tb.strdict) == 0) {
					return LNil, LNil
				}
				key = tb.keys[0]
				if v := tb.RawGetH(key); v != LNil {
					return key, v
				}
			}
		}
	}

	for i := tb.k2i[key] + 1; i < len(tb.keys); i++ {
		key := tb.keys[i]
		if v := tb.RawGetH(key); v != LNil {
			return key, v
		}
	}
	return LNil, LNil
}

// nextSmall is Next while the string keys are in tb.small: the array part,
// then tb.small in order. A key that is not in the table continues after
// the first string key, as Next does with k2i.
func (tb *LTable) nextSmall(key LValue) (LValue, LValue) {
	start := 0
	if key == LNil {
		key = LNumber(0)
	}
	if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && kv < LNumber(MaxArrayIndex) {
		for index := int(kv); index < len(tb.array); index++ {
			if v := tb.array[index]; v != LNil {
				return LNumber(index + 1), v
			}
		}
	} else {
		start = 1
		if s, ok := key.(LString); ok {
			if i := tb.smallIndex(string(s)); i >= 0 {
				start = i + 1
			}
		}
	}
	for i := start; i < len(tb.small); i++ {
		if kv := tb.small[i]; kv.value != LNil {
			return kv.key, kv.value
		}
	}
	return LNil, LNil
}
