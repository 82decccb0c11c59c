package output

import (
	"fmt"
	"math"
	"strconv"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Numbers in table cells: as tostring writes them, or, where the result
// declares their kind, as a person reads them (a time, a duration, a rate).

// appendNumber appends n as a cell of declared shape fs shows it: a time
// as RFC 3339, a duration and a rate as a person reads them, any other
// number as tostring(n) writes it.
func appendNumber(dst []byte, n lua.LNumber, fs *Shape) []byte {
	f := float64(n)
	switch {
	case fs.Is(KindTime):
		return appendTime(dst, n)
	case fs.Is(KindDuration) && f >= 0 && f < math.MaxInt64/1e6:
		return append(dst, Duration(time.Duration(f*float64(time.Millisecond)))...)
	case fs.Is(KindRate) && !math.IsNaN(f) && !math.IsInf(f, 0):
		return append(dst, Rate(f)...)
	}
	return appendLuaNumber(dst, n)
}

// Duration is d as a person waiting reads it: 0s, 450ms, 12.3s, 4m10s,
// 2h05m, 3d04h (each unit with the next one down, truncated).
func Duration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return strconv.FormatFloat(math.Trunc(d.Seconds()*10)/10, 'f', 1, 64) + "s"
	}
	s := int64(d / time.Second)
	switch {
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 48*3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s/3600%24)
}

// Rate is a rate with one decimal (11.4), or two significant digits when
// that would read 0.0 for one that is not (0.052).
func Rate(r float64) string {
	if r != 0 && math.Abs(r) < 0.05 {
		return strconv.FormatFloat(r, 'g', 2, 64)
	}
	return strconv.FormatFloat(r, 'f', 1, 64)
}

// appendLuaNumber appends n as tostring(n) writes it.
func appendLuaNumber(dst []byte, n lua.LNumber) []byte {
	if f := float64(n); f == float64(int64(n)) {
		return strconv.AppendInt(dst, int64(n), 10)
	}
	return strconv.AppendFloat(dst, float64(n), 'g', -1, 64)
}

// appendTime appends epoch milliseconds as RFC 3339 in UTC with
// milliseconds (2026-12-01T03:58:14.123Z), the same width on every row. A
// negative value (Kafka's -1: unknown, none) or one that is not an integer
// stays a number.
func appendTime(dst []byte, n lua.LNumber) []byte {
	f := float64(n)
	if f < 0 || f != math.Trunc(f) || f > maxTimeMillis {
		return appendLuaNumber(dst, n)
	}
	return time.UnixMilli(int64(f)).UTC().AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
}

// maxTimeMillis is the end of year 9999, past which RFC 3339 has no form.
const maxTimeMillis = 253402300799999
