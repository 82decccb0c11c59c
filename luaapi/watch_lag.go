package luaapi

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// watch's view of lag() results: each partition's lag with a bar scaled to
// the largest, the change since the last refresh, the consume and produce
// rates and the time left to zero lag, from the samples of the last
// refreshes (watchLag keeps them).

// lagGroup is one group of a lag() result as watch reads it.
type lagGroup struct {
	Group, State string
	TotalLag     int64
	Err          string // the group's error code, "" when none
	Partitions   []lagPartition
}

type lagPartition struct {
	Topic     string
	Partition int32
	Committed int64 // -1: no commit
	EndOffset int64
	Lag       int64 // -1: unknown (an error, or no_commit="skip")
	Err       string
}

// lagSample is one refresh's figures of a partition (or, with only lag
// set, of a group's total).
type lagSample struct {
	at                  time.Time
	committed, end, lag int64
}

// readLagResult reads v as lag() results: an array of groups, or one group
// record. ok is false for any other value, which watch prints as a table.
// An empty array is lag's when its metatable says so.
func readLagResult(v lua.LValue) ([]lagGroup, bool) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, false
	}
	if g, ok := readLagGroup(t); ok {
		return []lagGroup{g}, true
	}
	if !output.IsArray(t) {
		return nil, false
	}
	n := t.Len()
	if n == 0 {
		return nil, shapeOf(t) == ResultShape("lag")
	}
	groups := make([]lagGroup, 0, n)
	for i := 1; i <= n; i++ {
		row, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			return nil, false
		}
		g, ok := readLagGroup(row)
		if !ok {
			return nil, false
		}
		groups = append(groups, g)
	}
	return groups, true
}

// readLagGroup reads one group record: group, partitions (each with
// topic, partition and lag) and what else it has.
func readLagGroup(t *lua.LTable) (lagGroup, bool) {
	name, ok := t.RawGetString("group").(lua.LString)
	parts, pok := t.RawGetString("partitions").(*lua.LTable)
	if !ok || !pok || !output.IsArray(parts) {
		return lagGroup{}, false
	}
	g := lagGroup{Group: string(name), State: luaString(t, "state"), TotalLag: luaInt(t, "total_lag", 0), Err: errCode(t)}
	for i := 1; i <= parts.Len(); i++ {
		p, ok := parts.RawGetInt(i).(*lua.LTable)
		if !ok {
			return lagGroup{}, false
		}
		topic, tok := p.RawGetString("topic").(lua.LString)
		_, nok := p.RawGetString("partition").(lua.LNumber)
		_, lok := p.RawGetString("lag").(lua.LNumber)
		if !tok || !nok || !lok {
			return lagGroup{}, false
		}
		g.Partitions = append(g.Partitions, lagPartition{Topic: string(topic), Partition: int32(luaInt(p, "partition", 0)),
			Committed: luaInt(p, "committed", -1), EndOffset: luaInt(p, "end_offset", -1), Lag: luaInt(p, "lag", -1), Err: errCode(p)})
	}
	return g, true
}

func luaString(t *lua.LTable, k string) string {
	if s, ok := t.RawGetString(k).(lua.LString); ok {
		return string(s)
	}
	return ""
}

func luaInt(t *lua.LTable, k string, dflt int64) int64 {
	if n, ok := t.RawGetString(k).(lua.LNumber); ok {
		return int64(n)
	}
	return dflt
}

// errCode is the code of the error value at t.error, "" when none.
func errCode(t *lua.LTable) string {
	if e, ok := t.RawGetString("error").(*lua.LTable); ok {
		if c := luaString(e, "code"); c != "" {
			return c
		}
		return "ERROR"
	}
	return ""
}

// watchLag keeps the samples of the last refreshes, per partition and per
// group, and renders lag results with them.
type watchLag struct {
	window int                    // samples kept per partition: the rates are measured over them
	parts  map[string][]lagSample // group \x00 topic \x00 partition -> oldest first
	groups map[string][]lagSample // group -> its total lag, oldest first
}

func newWatchLag(window int) *watchLag {
	return &watchLag{window: window, parts: map[string][]lagSample{}, groups: map[string][]lagSample{}}
}

// add appends s to a history, keeping the last w samples; a sample not
// after the last (the clock went back) replaces the history.
func addSample(h []lagSample, s lagSample, w int) []lagSample {
	if n := len(h); n > 0 && !s.at.After(h[n-1].at) {
		h = h[:0]
	}
	h = append(h, s)
	if len(h) > w {
		h = append(h[:0], h[len(h)-w:]...)
	}
	return h
}

// lagFigures are what a row shows beside the lag.
type lagFigures struct {
	change             string // since the last refresh
	consume, produce   string // records/s over the window
	eta                string
	consumeR, produceR float64
	rates              bool // consumeR and produceR are known
}

// etaKeepsUp is the ETA of a consumer that keeps up: over the window it
// read at least the lag it has now, and at least that much was produced.
// Its unread records are then recent ones, what a commit interval leaves
// unread, not a backlog, and they come and go with each commit: a time
// to zero read off them was noise ("never" between two commits, "3m01s"
// when one fell just inside the window).
const etaKeepsUp = "keeps up"

// figures works out a history's change, rates and ETA (h: oldest first,
// the current sample last; full: h holds a whole window).
func figures(h []lagSample, full bool) lagFigures {
	f := lagFigures{change: "-", consume: "-", produce: "-", eta: "-"}
	cur := h[len(h)-1]
	if cur.lag == 0 {
		f.eta = "0s"
	}
	if len(h) < 2 {
		return f
	}
	prev, first := h[len(h)-2], h[0]
	if cur.lag >= 0 && prev.lag >= 0 {
		f.change = signed(cur.lag - prev.lag)
	}
	secs := cur.at.Sub(first.at).Seconds()
	if secs <= 0 {
		return f
	}
	if cur.committed >= 0 && first.committed >= 0 {
		f.consumeR = float64(cur.committed-first.committed) / secs
		f.consume = rate(f.consumeR)
	}
	if cur.end >= 0 && first.end >= 0 {
		f.produceR = float64(cur.end-first.end) / secs
		f.produce = rate(f.produceR)
	}
	f.rates = f.consume != "-" && f.produce != "-"
	if cur.lag > 0 && first.lag >= 0 {
		// The lag drains at the rate it fell over the window; a lag that
		// did not fall never reaches zero at this pace.
		if cur.committed >= 0 && first.committed >= 0 && cur.committed-first.committed >= cur.lag &&
			cur.end >= 0 && first.end >= 0 && cur.end-first.end >= cur.lag {
			f.eta = etaKeepsUp
		} else if drain := float64(first.lag-cur.lag) / secs; drain > 0 {
			f.eta = eta(time.Duration(float64(cur.lag) / drain * float64(time.Second)))
		} else if full || cur.committed < 0 || cur.committed != first.committed {
			f.eta = "never"
		} // else "-": no commit yet in a window still filling, which may be shorter than the consumer's commit interval
	}
	return f
}

// sumKnown adds n to sum; either unknown (negative) makes it unknown.
func sumKnown(sum, n int64) int64 {
	if sum < 0 || n < 0 {
		return -1
	}
	return sum + n
}

func signed(n int64) string {
	if n > 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// rate is records/s as tables print rates (output.Rate: one decimal).
func rate(r float64) string { return output.Rate(r) }

// eta is a time left, rounded up to the second, as a person waiting reads
// it: 45s, 4m10s, 2h05m, 3d04h.
func eta(d time.Duration) string {
	if d > 365*24*time.Hour {
		return "> 1y"
	}
	s := time.Duration(math.Ceil(d.Seconds())) * time.Second
	if s < time.Minute {
		return fmt.Sprintf("%ds", s/time.Second)
	}
	return output.Duration(s)
}

// lagRowsHead are the columns of a partition's row, the bar last. The
// ETA is next to the lag: on a narrow terminal the rates are cut first.
var lagRowsHead = []string{"TOPIC", "PARTITION", "LAG", "ETA", "CHANGE", "CONSUME/S", "PRODUCE/S", ""}

// lagTopicMin is the narrowest the topic column is cut to, to fit the
// figures into a terminal's width.
const lagTopicMin = 12

// render takes in one refresh's groups at now and returns the block's
// lines. width (0: no limit) bounds the bar; terminal picks its glyphs.
func (w *watchLag) render(groups []lagGroup, now time.Time, width int, terminal bool) []string {
	if len(groups) == 0 {
		return []string{"(no groups)"}
	}
	var maxLag int64
	for _, g := range groups {
		for _, p := range g.Partitions {
			maxLag = max(maxLag, p.Lag)
		}
	}
	type row struct {
		cells []string
		lag   int64
	}
	type block struct {
		head string
		rows []row
	}
	var blocks []block
	seenGroups := map[string]bool{}
	seenParts := map[string]bool{}
	for _, g := range groups {
		var rows []row
		var consume, produce float64
		rates := 0
		// The partitions' committed and end offsets summed: their change
		// is what the group consumed and what was produced.
		committed, end := int64(0), int64(0)
		for _, p := range g.Partitions {
			committed, end = sumKnown(committed, p.Committed), sumKnown(end, p.EndOffset)
		}
		for _, p := range g.Partitions {
			key := g.Group + "\x00" + p.Topic + "\x00" + strconv.Itoa(int(p.Partition))
			seenParts[key] = true
			f := lagFigures{change: "-", consume: "-", produce: "-", eta: "-"}
			lagText := strconv.FormatInt(p.Lag, 10)
			if p.Lag >= 0 && p.Err == "" {
				w.parts[key] = addSample(w.parts[key], lagSample{at: now, committed: p.Committed, end: p.EndOffset, lag: p.Lag}, w.window)
				f = figures(w.parts[key], len(w.parts[key]) == w.window)
				if f.rates {
					consume, produce, rates = consume+f.consumeR, produce+f.produceR, rates+1
				}
			} else {
				lagText = "-"
			}
			cells := []string{output.CellText(p.Topic), strconv.Itoa(int(p.Partition)), lagText, f.eta, f.change, f.consume, f.produce}
			if p.Err != "" {
				cells[len(cells)-1] += " " + output.CellText(p.Err)
			}
			rows = append(rows, row{cells: cells, lag: p.Lag})
		}
		seenGroups[g.Group] = true
		// A total that leaves out a failed partition is not compared: it
		// would seem to fall.
		gf := lagFigures{change: "-", eta: "-"}
		if g.Err == "" && !slices.ContainsFunc(g.Partitions, func(p lagPartition) bool { return p.Err != "" }) {
			w.groups[g.Group] = addSample(w.groups[g.Group], lagSample{at: now, committed: committed, end: end, lag: g.TotalLag}, w.window)
			gf = figures(w.groups[g.Group], len(w.groups[g.Group]) == w.window)
		}
		head := fmt.Sprintf("%s  %s  total lag %d  ETA %s  change %s", output.CellText(g.Group), output.CellText(g.State), g.TotalLag, gf.eta, gf.change)
		if rates > 0 {
			head += fmt.Sprintf("  consume %s/s  produce %s/s", rate(consume), rate(produce))
		}
		if g.Err != "" {
			head += "  error " + output.CellText(g.Err)
		}
		blocks = append(blocks, block{head: head, rows: rows})
	}
	// Forget what is no longer shown: a group or partition that comes back
	// starts over.
	for k := range w.parts {
		if !seenParts[k] {
			delete(w.parts, k)
		}
	}
	for k := range w.groups {
		if !seenGroups[k] {
			delete(w.groups, k)
		}
	}

	// Align every group's rows alike; the bar takes what is left.
	widths := make([]int, len(lagRowsHead)-1)
	for j := range widths {
		widths[j] = len(lagRowsHead[j])
	}
	for _, b := range blocks {
		for _, r := range b.rows {
			for j, c := range r.cells {
				widths[j] = max(widths[j], utf8.RuneCountInString(c))
			}
		}
	}
	used := 2
	for _, n := range widths {
		used += n + 2
	}
	// Long topic names are cut before the figures are: what is cut at a
	// terminal's edge is the rates, then the topic.
	if width > 0 && used > width && widths[0] > lagTopicMin {
		cut := min(used-width, widths[0]-lagTopicMin)
		widths[0] -= cut
		used -= cut
	}
	barWidth := lagBarWidth
	if width > 0 {
		barWidth = min(barWidth, width-used)
	}
	pad := func(cells []string) string {
		var b strings.Builder
		b.WriteString("  ")
		for j, c := range cells {
			if n := utf8.RuneCountInString(c); n > widths[j] {
				c = string([]rune(c)[:widths[j]-1]) + "…"
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2))
		}
		return b.String()
	}
	var out []string
	for _, b := range blocks {
		out = append(out, b.head)
		if len(b.rows) == 0 {
			out = append(out, "  (no partitions)")
			continue
		}
		out = append(out, strings.TrimRight(pad(lagRowsHead[:len(lagRowsHead)-1]), " "))
		for _, r := range b.rows {
			out = append(out, strings.TrimRight(pad(r.cells)+bar(r.lag, maxLag, barWidth, terminal), " "))
		}
	}
	return out
}

// lagBarWidth is the widest bar, in columns.
const lagBarWidth = 30

// bar is lag's share of the largest lag as a bar of up to width columns:
// block glyphs in eighths on a terminal, '#' otherwise. A partition that
// lags at all gets at least a sliver.
func bar(lag, largest int64, width int, terminal bool) string {
	if lag <= 0 || largest <= 0 || width <= 0 {
		return ""
	}
	eighths := int(math.Round(float64(lag) / float64(largest) * float64(width*8)))
	if !terminal {
		return strings.Repeat("#", max(1, (eighths+4)/8))
	}
	eighths = max(1, eighths)
	s := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return s
}
