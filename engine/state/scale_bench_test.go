package state

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// Issue 32's scale: 65,000 groups of 40 partitions (4 topics of 10 each),
// 10 samples a partition in the file, recorded by pages of 2,000 groups
// (engine.DefaultLagPage) as lag_status does, then saved. Reported: the
// whole run's time, the peak heap over the heap before the store was
// opened (sampled every 2 ms: its objects, and the live heap as last
// marked), what the run allocated, and the file's size. The offsets move
// by 50 a minute and lag 400: about 90 bytes a partition in the file.
func BenchmarkRecordPage2600kPartitions(b *testing.B) {
	const groups, topics, parts, samples, page = 65_000, 4, 10, 10, 2_000
	dir := b.TempDir()
	path := filepath.Join(dir, "state")
	const startMs, stepMs = 1_700_000_000_000, 60_000
	if err := writeScaleState(path, groups, topics, parts, samples, startMs, stepMs); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	// One group's rows, shared by every group: the store's memory, not
	// the caller's, is what is measured.
	rows := make([]row, 0, topics*parts)
	for t := range topics {
		for p := range parts {
			rows = append(rows, row{topic: scaleTopic(t), partition: int32(p)})
		}
	}
	seen := make([]Group[row], page)
	o := Options{Window: 10 * time.Minute, MaxSamples: samples, MinDistance: -1, MaxEntries: 3_000_000, MaxFileBytes: 1 << 30}
	var peak, peakLive, alloc uint64
	b.ResetTimer()
	for k := range b.N {
		b.StopTimer()
		nowMs := int64(startMs + (samples+k)*stepMs)
		for i := range rows {
			v := int64(1_000_000 + (samples+k)*50 + i)
			rows[i].committed, rows[i].end, rows[i].lag = v, v+400, 400
		}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		watch := watchHeap()
		b.StartTimer()

		s, err := OpenFile(path, o)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.BeginChange(); err != nil {
			b.Fatal(err)
		}
		for first := 0; first < groups; first += page {
			n := min(page, groups-first)
			for i := range n {
				seen[i] = Group[row]{Name: scaleGroup(first + i), Parts: rows}
			}
			if err := RecordPage(s, "cluster", "", nowMs, seen[:n], readRow, nil); err != nil {
				b.Fatal(err)
			}
		}
		s.WriteBehind()
		if err := s.Save(); err != nil {
			b.Fatal(err)
		}
		s.Close()

		b.StopTimer()
		heap, live := watch()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		peak = max(peak, heap-min(heap, before.HeapAlloc))
		peakLive = max(peakLive, live-min(live, before.HeapAlloc))
		alloc = max(alloc, after.TotalAlloc-before.TotalAlloc)
		if s.Partitions() != groups*topics*parts {
			b.Fatalf("%d partitions kept", s.Partitions())
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(peakLive)/1e6, "peak-live-MB")
	b.ReportMetric(float64(alloc)/1e6, "alloc-MB")
	b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
}

func scaleGroup(i int) string { return fmt.Sprintf("consumer-group-%06d", i) }
func scaleTopic(t int) string { return fmt.Sprintf("orders-events-%02d", t) }

// watchHeap samples the heap until the function it returns is called,
// which returns the most seen of its objects (live, and dead not yet
// swept: what the process holds) and of the live heap as the collector
// last marked it (what the store keeps).
func watchHeap() func() (heap, live uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var most, live uint64
	var mu sync.Mutex
	read := func() {
		metrics.Read(sample)
		mu.Lock()
		most = max(most, sample[0].Value.Uint64())
		live = max(live, sample[1].Value.Uint64())
		mu.Unlock()
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	return func() (uint64, uint64) {
		close(stop)
		<-done
		read()
		return most, live
	}
}

// writeScaleState writes a state file (codec.go's format, written here
// without a store, so that making it costs the benchmark nothing) of
// groups x topics x parts partitions with samples samples each, stepMs
// apart from startMs, every partition's offsets the same as rows' in
// BenchmarkRecordPage2600kPartitions.
func writeScaleState(path string, groups, topics, parts, samples int, startMs, stepMs int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	crc := crc32.NewIEEE()
	w := bufio.NewWriter(f)
	if _, err := w.WriteString(stateMagic); err != nil {
		return err
	}
	if err := w.WriteByte(stateVersion); err != nil {
		return err
	}
	out := io.MultiWriter(w, crc)
	var b []byte
	flush := func() error {
		_, err := out.Write(b)
		b = b[:0]
		return err
	}
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	b = binary.AppendUvarint(b, 1)
	str("cluster")
	str("")
	b = binary.AppendUvarint(b, uint64(groups))
	for g := range groups {
		str(scaleGroup(g))
		b = binary.AppendVarint(b, startMs+int64(samples-1)*stepMs)
		b = binary.AppendUvarint(b, uint64(topics))
		for t := range topics {
			str(scaleTopic(t))
			b = binary.AppendUvarint(b, uint64(parts))
			for p := range parts {
				i := int64(t*parts + p)
				b = binary.AppendVarint(b, int64(p))
				b = binary.AppendVarint(b, startMs+int64(samples-1)*stepMs) // changed
				b = binary.AppendVarint(b, stepMs)                          // pause
				b = binary.AppendUvarint(b, uint64(samples))
				var prevT, prevC, prevE int64
				for k := range int64(samples) {
					tm, c := startMs+k*stepMs, 1_000_000+k*50+i
					for _, v := range []int64{tm - prevT, c - prevC, c + 400 - prevE, 400} {
						b = binary.AppendVarint(b, v)
					}
					prevT, prevC, prevE = tm, c, c+400
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
	b = binary.AppendUvarint(b, 0) // notices
	if err := flush(); err != nil {
		return err
	}
	if _, err := w.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return err
	}
	return w.Flush()
}
