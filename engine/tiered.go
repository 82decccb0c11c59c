package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TieredPartition is one partition of a topic in tiered storage: where its
// log starts (anywhere), where its local part starts, what is in remote
// storage and what waits to be copied there. Offsets the broker does not
// give are -1.
type TieredPartition struct {
	Partition int32 `json:"partition"`
	LogStart  int64 `json:"log_start"`
	// EarliestLocal: the first offset on the brokers' disks; LatestTiered:
	// the last in remote storage (-1: none yet); EarliestPendingUpload:
	// the first not yet copied (Kafka 4.2+, -1 where not reported).
	EarliestLocal         int64 `json:"earliest_local"`
	LatestTiered          int64 `json:"latest_tiered"`
	EarliestPendingUpload int64 `json:"earliest_pending_upload"`
	EndOffset             int64 `json:"end_offset"`
	// RemoteOnly: records no longer on the brokers' disks (log start to
	// the earliest local offset); LocalRecords: the rest.
	RemoteOnly   int64 `json:"remote_only"`
	LocalRecords int64 `json:"local_records"`
	// PendingUpload: records not yet copied (where the broker reports it).
	PendingUpload *int64 `json:"pending_upload,omitempty"`
	// LocalBytes: the largest replica on disk (describe_log_dirs, -1 when
	// unread); TotalBytes: an estimate of the whole log, local and remote,
	// at the local part's mean record size (nil when it cannot be made).
	LocalBytes         int64  `json:"local_bytes"`
	TotalBytes         *int64 `json:"total_bytes,omitempty"`
	PendingUploadBytes *int64 `json:"pending_upload_bytes,omitempty"`
	Err                *Error `json:"error,omitempty"`
}

// TopicTiering is one topic's tiered storage: its retention horizons and
// its partitions' local and remote parts, summed.
type TopicTiering struct {
	Topic         string `json:"topic"`
	RemoteStorage bool   `json:"remote_storage"`
	// The horizons: retention.ms and retention.bytes bound the whole log
	// (what data at risk is judged against, AtRiskAgainst);
	// local.retention.ms and .bytes what stays on disk (-2 in the config
	// means the same as the whole log's, and is given as that).
	RetentionMs         int64  `json:"retention_ms"`
	RetentionBytes      int64  `json:"retention_bytes"`
	LocalRetentionMs    int64  `json:"local_retention_ms"`
	LocalRetentionBytes int64  `json:"local_retention_bytes"`
	AtRiskAgainst       string `json:"at_risk_against"`
	// Sums over the partitions; TotalBytes and PendingUpload are nil
	// when a partition's is unknown.
	RemoteOnly    int64             `json:"remote_only"`
	PendingUpload *int64            `json:"pending_upload,omitempty"`
	LocalBytes    int64             `json:"local_bytes"`
	TotalBytes    *int64            `json:"total_bytes,omitempty"`
	Partitions    []TieredPartition `json:"partitions"`
	Err           *Error            `json:"error,omitempty"`
}

func (t TopicTiering) Key() string     { return t.Topic }
func (t TopicTiering) Failure() *Error { return t.Err }

// AtRiskAgainstWholeLog is what lag's at_risk judges a topic against.
const AtRiskAgainstWholeLog = "retention.ms and retention.bytes: the whole log, local and remote"

// TieredStorage describes topics' tiered storage (KIP-405): every topic
// with remote.storage.enable=true when topics is empty, else the topics
// named (those without it with remote_storage false and no partitions).
// Four or five ListOffsets per leader, one DescribeConfigs, one
// DescribeLogDirs.
func (c *Client) TieredStorage(ctx context.Context, topics []string) ([]TopicTiering, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	names := slices.Compact(slices.Sorted(slices.Values(topics)))
	m, e := c.metadata(ctx, names)
	if e != nil {
		return nil, e
	}
	var out []TopicTiering
	var rs []ConfigResource
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range m.Topics {
			if !yield(n) {
				return
			}
		}
	}) {
		if t := m.Topics[name]; t.Err != nil {
			out = append(out, TopicTiering{Topic: name, Err: AsError(t.Err, name)})
			continue
		}
		rs = append(rs, ConfigResource{Type: ConfigTopic, Name: name})
	}
	if len(rs) == 0 {
		return out, nil
	}
	keys := []string{"remote.storage.enable", "retention.ms", "retention.bytes", "local.retention.ms", "local.retention.bytes"}
	described, err := c.DescribeConfigs(ctx, rs, DescribeConfigsOptions{Keys: keys})
	if err != nil {
		return nil, err
	}
	var tps []TopicPartition
	byName := map[string]int{}
	for _, d := range described {
		if d.Err != nil {
			out = append(out, TopicTiering{Topic: d.Name, Err: d.Err})
			continue
		}
		v := func(key string) int64 {
			if e, ok := d.Configs[key]; ok && e.Value != nil {
				if n, perr := strconv.ParseInt(*e.Value, 10, 64); perr == nil {
					return n
				}
			}
			return -1
		}
		e, ok := d.Configs["remote.storage.enable"]
		t := TopicTiering{Topic: d.Name, RemoteStorage: ok && e.Value != nil && *e.Value == "true",
			RetentionMs: v("retention.ms"), RetentionBytes: v("retention.bytes"),
			LocalRetentionMs: v("local.retention.ms"), LocalRetentionBytes: v("local.retention.bytes"),
			AtRiskAgainst: AtRiskAgainstWholeLog, Partitions: []TieredPartition{}}
		if t.LocalRetentionMs == -2 {
			t.LocalRetentionMs = t.RetentionMs
		}
		if t.LocalRetentionBytes == -2 {
			t.LocalRetentionBytes = t.RetentionBytes
		}
		if !t.RemoteStorage && len(names) == 0 {
			continue // every topic: the tiered ones
		}
		if t.RemoteStorage {
			for p := range m.Topics[d.Name].Partitions {
				tps = append(tps, TopicPartition{Topic: d.Name, Partition: p})
			}
		}
		byName[d.Name] = len(out)
		out = append(out, t)
	}
	if len(tps) > 0 {
		if err := c.tieredPartitions(ctx, tps, out, byName); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b TopicTiering) int { return strings.Compare(a.Topic, b.Topic) })
	return out, nil
}

// tieredPartitions lists the offsets and sizes of tps (partitions of the
// tiered topics of out) and sets their rows and sums.
func (c *Client) tieredPartitions(ctx context.Context, tps []TopicPartition, out []TopicTiering, byName map[string]int) error {
	slices.SortFunc(tps, compareTP)
	kinds := []string{OffsetAtEarliest, OffsetAtEarliestLocal, OffsetAtLatestTiered, OffsetAtLatest, OffsetAtEarliestPendingUpload}
	if ok, err := c.reportsPendingUpload(ctx); err != nil {
		return err
	} else if !ok {
		kinds = kinds[:4]
	}
	listed := make([][]ListedOffset, 5)
	listed[4] = make([]ListedOffset, len(tps))
	for i := range listed[4] {
		listed[4][i] = ListedOffset{Offset: -1, Err: errNoPendingUpload}
	}
	for i, k := range kinds {
		l, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: k})
		if err != nil {
			return err
		}
		listed[i] = l
	}
	topics := make([]string, 0, len(byName))
	for _, tp := range tps {
		if len(topics) == 0 || topics[len(topics)-1] != tp.Topic {
			topics = append(topics, tp.Topic)
		}
	}
	sizes := c.partitionSizes(ctx, topics, nil) // nil when unreadable: local_bytes -1
	for i, tp := range tps {
		start, local, tiered, end, pending := listed[0][i], listed[1][i], listed[2][i], listed[3][i], listed[4][i]
		p := TieredPartition{Partition: tp.Partition, LogStart: start.Offset, EarliestLocal: local.Offset, LatestTiered: tiered.Offset,
			EarliestPendingUpload: -1, EndOffset: end.Offset, LocalBytes: -1}
		for _, l := range []ListedOffset{start, local, end} {
			if l.Err != nil && p.Err == nil {
				p.Err = l.Err
			}
		}
		if tiered.Err != nil {
			p.LatestTiered = -1 // Kafka before 3.9 does not say
		}
		if size, ok := sizes[tp]; ok {
			p.LocalBytes = size
		}
		if p.Err == nil {
			p.RemoteOnly = max(p.EarliestLocal-p.LogStart, 0)
			p.LocalRecords = max(p.EndOffset-p.EarliestLocal, 0)
			if pending.Err == nil && pending.Offset >= 0 {
				p.EarliestPendingUpload = pending.Offset
				n := max(p.EndOffset-pending.Offset, 0)
				p.PendingUpload = &n
			}
			if p.LocalBytes >= 0 && p.LocalRecords > 0 {
				perRecord := float64(p.LocalBytes) / float64(p.LocalRecords)
				total := int64(perRecord * float64(p.EndOffset-p.LogStart))
				p.TotalBytes = &total
				if p.PendingUpload != nil {
					b := int64(perRecord * float64(*p.PendingUpload))
					p.PendingUploadBytes = &b
				}
			} else if p.LocalBytes >= 0 && p.EndOffset == p.LogStart {
				total := p.LocalBytes // empty: nothing anywhere
				p.TotalBytes = &total
			}
		}
		t := &out[byName[tp.Topic]]
		t.Partitions = append(t.Partitions, p)
	}
	for _, i := range byName {
		t := &out[i]
		if !t.RemoteStorage {
			continue
		}
		var total, pending int64
		totalKnown, pendingKnown := true, true
		for _, p := range t.Partitions {
			if p.Err != nil && t.Err == nil {
				t.Err = p.Err
			}
			t.RemoteOnly += p.RemoteOnly
			t.LocalBytes += max(p.LocalBytes, 0)
			if p.TotalBytes == nil {
				totalKnown = false
			} else {
				total += *p.TotalBytes
			}
			if p.PendingUpload == nil {
				pendingKnown = false
			} else {
				pending += *p.PendingUpload
			}
		}
		if totalKnown {
			t.TotalBytes = &total
		}
		if pendingKnown {
			t.PendingUpload = &pending
		}
	}
	return nil
}

// errNoPendingUpload: the broker does not report the earliest offset
// pending upload (ListOffsets v11, KIP-1023).
var errNoPendingUpload = &Error{Code: "UNSUPPORTED_VERSION", Message: "the broker does not report the earliest offset pending upload to remote storage (ListOffsets v11, KIP-1023: Kafka 4.2+)"}

// reportsPendingUpload says whether the brokers answer ListOffsets v11,
// whose timestamp -6 is the earliest offset pending upload: an older
// broker given -6 would not refuse it but search by time.
func (c *Client) reportsPendingUpload(ctx context.Context) (bool, error) {
	resp, err := c.askAPIVersions(ctx)
	if err != nil {
		return false, err
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == int16(kmsg.ListOffsets) {
			return k.MaxVersion >= 11, nil
		}
	}
	return false, nil
}
