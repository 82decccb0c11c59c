package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// median of xs (the lower middle for an even count); xs is not changed.
func median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func walls(s []Sample) []time.Duration {
	return pick(s, func(x Sample) time.Duration { return x.Wall })
}
func cpus(s []Sample) []time.Duration { return pick(s, func(x Sample) time.Duration { return x.CPU }) }
func peaks(s []Sample) []int64        { return pick(s, func(x Sample) int64 { return x.PeakKB }) }

func pick[T any](s []Sample, f func(Sample) T) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// Ratio is the median of the rounds' ratios A/B of wall time: each round
// ran both programs back to back, so a burst of load elsewhere on the
// machine hits both sides of one ratio more than it hits the medians.
func (r Result) Ratio() float64 {
	ratios := make([]float64, 0, len(r.A))
	for i := range min(len(r.A), len(r.B)) {
		ratios = append(ratios, float64(r.A[i].Wall)/float64(r.B[i].Wall))
	}
	return median(ratios)
}

// CPURatio is Ratio of user+system CPU time.
func (r Result) CPURatio() float64 {
	ratios := make([]float64, 0, len(r.A))
	for i := range min(len(r.A), len(r.B)) {
		if r.B[i].CPU > 0 {
			ratios = append(ratios, float64(r.A[i].CPU)/float64(r.B[i].CPU))
		}
	}
	return median(ratios)
}

// Met reports whether the targets are met; ok is false when the row has
// none.
func (r Result) Met() (met, ok bool) {
	if r.Limit == 0 && r.LimitMS == 0 && r.LimitMB == 0 && r.LimitPeak == 0 {
		return false, false
	}
	met = true
	if r.Limit > 0 && r.Ratio() > r.Limit {
		met = false
	}
	if r.LimitMS > 0 && ms(median(walls(r.A))) > r.LimitMS {
		met = false
	}
	if r.LimitMB > 0 && float64(median(peaks(r.A)))/1024 > r.LimitMB {
		met = false
	}
	if r.LimitPeak > 0 && float64(median(peaks(r.A))) > r.LimitPeak*float64(median(peaks(r.B))) {
		met = false
	}
	return met, true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", ms(d))
	default:
		return fmt.Sprintf("%.1f ms", ms(d))
	}
}

// Table renders results as the markdown table docs/benchmarks.md keeps.
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| | workload | kadmin-lua | yardstick | ratio (wall) | ratio (CPU) | peak RSS | target | met |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		met := "-"
		if m, ok := r.Met(); ok {
			met = map[bool]string{true: "yes", false: "**no**"}[m]
		}
		cpu, peak := "-", "-"
		if c := r.CPURatio(); c > 0 {
			cpu = fmt.Sprintf("%.2fx", c)
		}
		if pa, pb := median(peaks(r.A)), median(peaks(r.B)); pa > 0 {
			peak = fmt.Sprintf("%d MB / %d MB", pa/1024, pb/1024)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s: %s | %.2fx | %s | %s | %s | %s |\n",
			r.Name, r.Work, fmtDur(median(walls(r.A))), r.Yardstick, fmtDur(median(walls(r.B))),
			r.Ratio(), cpu, peak, r.Target, met)
	}
	return b.String()
}

// Machine describes where the numbers were taken: CPU, cores, Go, and the
// load average (other work on the machine) before and after.
func Machine(loadBefore string) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s/%s, %s; load average %s before, %s after",
		cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), loadBefore, LoadAverage())
}

// LoadAverage is the 1-minute load average, or "?".
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
