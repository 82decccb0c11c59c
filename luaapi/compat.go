package luaapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// needsText is f's needs in words, [] when none.
func needsText(f *Func) []string {
	out := []string{}
	for _, n := range f.Needs {
		out = append(out, n.String())
	}
	return out
}

// needsNote is the line help and docs/api.md give a function with needs.
func needsNote(f *Func) string {
	if len(f.Needs) == 0 {
		return ""
	}
	return "Needs: " + strings.Join(needsText(f), "; ") + "; elsewhere it fails with UNSUPPORTED_VERSION before sending anything"
}

// KafkaColumn is one Kafka release and mode of docs/compatibility.md, as
// the version matrix of `make test` runs it (KADMIN_KAFKA_VERSION,
// KADMIN_KAFKA_MODE).
type KafkaColumn struct {
	Version string // the release the matrix runs, "3.9.1"
	Mode    string // engine.ModeKRaft or engine.ModeZooKeeper
	// Finalized are the features a cluster of this release is formatted
	// with, besides metadata.version (which every KRaft cluster has).
	Finalized map[string]int16
}

// Label names the column: "3.9.1 ZooKeeper", "4.4.0".
func (k KafkaColumn) Label() string {
	switch {
	case k.Mode == engine.ModeZooKeeper:
		return k.Version + " ZooKeeper"
	case strings.HasPrefix(k.Version, "3."):
		return k.Version + " KRaft"
	}
	return k.Version
}

// KafkaColumns are the Kafka releases and modes kadmin-lua is tested on.
// share.version and streams.version are finalized at format time from
// Kafka 4.2 on.
var KafkaColumns = []KafkaColumn{
	{Version: "3.9.1", Mode: engine.ModeZooKeeper},
	{Version: "3.9.1", Mode: engine.ModeKRaft},
	{Version: "4.0.2", Mode: engine.ModeKRaft},
	{Version: "4.1.2", Mode: engine.ModeKRaft},
	{Version: "4.4.0", Mode: engine.ModeKRaft, Finalized: map[string]int16{"share.version": 1, "streams.version": 1}},
}

// LookupColumn finds the column of a version and mode, nil if untested.
func LookupColumn(version, mode string) *KafkaColumn {
	for i := range KafkaColumns {
		if KafkaColumns[i].Version == version && KafkaColumns[i].Mode == mode {
			return &KafkaColumns[i]
		}
	}
	return nil
}

// Lacks is what of f's needs a fresh cluster of column k lacks, in the
// table's words ("" when f works there): "needs KRaft", "needs Kafka
// 4.1+", "needs share.version".
func (k KafkaColumn) Lacks(f *Func) string {
	for _, n := range f.Needs {
		switch {
		case n.KRaft && k.Mode != engine.ModeKRaft:
			return "needs KRaft"
		case n.API >= 0 && releaseBefore(k.Version, n.Since):
			return "needs Kafka " + n.Since + "+"
		case n.Feature != "" && k.Finalized[n.Feature] < n.FeatureLevel:
			return "needs " + n.Feature
		}
	}
	return ""
}

// releaseBefore reports whether version (3.9.1) is older than release (4.1).
func releaseBefore(version, release string) bool {
	v, r := strings.Split(version, "."), strings.Split(release, ".")
	for i := 0; i < len(r); i++ {
		if i >= len(v) {
			return true
		}
		a, _ := strconv.Atoi(v[i])
		b, _ := strconv.Atoi(r[i])
		if a != b {
			return a < b
		}
	}
	return false
}

// CompatibilityDoc renders docs/compatibility.md from the declarations:
// every admin function against every tested Kafka release and mode.
func CompatibilityDoc() string {
	var b strings.Builder
	b.WriteString("# Compatibility: functions x Kafka releases\n\n")
	b.WriteString("Generated from the declarations in `luaapi` (`Func.Needs`) by `make docs`; `TestCompatibilityDocIsFresh` fails when it\n")
	b.WriteString("is stale. `make test` runs every function on a real broker of each column (`integration/compat`, see\n")
	b.WriteString("[testing.md](testing.md)) and fails when a function marked *yes* fails there, or when one marked otherwise does\n")
	b.WriteString("not fail with `UNSUPPORTED_VERSION` naming its need before sending anything.\n\n")
	b.WriteString("*yes*: works. Otherwise the call fails at once with `UNSUPPORTED_VERSION` and a message naming what is missing, decided\n")
	b.WriteString("from the cluster's ApiVersions answer (the requests it advertises, its finalized features, and from those its mode:\n")
	b.WriteString("KRaft when `metadata.version` is finalized), for example `needs Kafka 4.1+ (ListConfigResources v1): this cluster's\n")
	b.WriteString("brokers do not advertise ListConfigResources`, `needs KRaft: this cluster runs ZooKeeper`, `share groups are not\n")
	b.WriteString("enabled on this cluster: needs the share.version feature at level 1 or above`. A feature off by default can be turned\n")
	b.WriteString("on with `update_features`, after which the function works: the check reads the cluster, not this table.\n\n")
	b.WriteString("| function |")
	for _, k := range KafkaColumns {
		b.WriteString(" " + k.Label() + " |")
	}
	b.WriteString(" needs |\n|---|")
	for range KafkaColumns {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, f := range Funcs() {
		if !f.IsAdmin() {
			continue
		}
		fmt.Fprintf(&b, "| [%s](api.md#%s) |", f.Name, anchor(f.Name))
		for _, k := range KafkaColumns {
			cell := k.Lacks(f)
			if cell == "" {
				cell = "yes"
			}
			b.WriteString(" " + cell + " |")
		}
		needs := strings.Join(needsText(f), "; ")
		if needs == "" {
			needs = "-"
		}
		b.WriteString(" " + needs + " |\n")
	}
	b.WriteString("\nThe library functions (`kafka.*`, `help`) send nothing to a cluster and work with every release.\n")
	b.WriteString("\nStreams groups (Kafka Streams applications with `group.protocol=streams`, KIP-1071) exist from Kafka 4.2, and on\n")
	b.WriteString("4.1 as early access: on brokers started (and formatted) with `unstable.api.versions.enable=true` and\n")
	b.WriteString("`unstable.feature.versions.enable=true`, which finalizes `streams.version` 1 (`group.coordinator.rebalance.protocols`\n")
	b.WriteString("includes `streams` by default). Only `describe_streams_groups` needs StreamsGroupDescribe; `fetch_offsets`, `lag`,\n")
	b.WriteString("`lag_status`, `reset_offsets`, `commit_offsets`, `delete_group_offsets` and `delete_groups` take a streams group on\n")
	b.WriteString("any cluster that has one, with the requests they send for a consumer group (their rows above).\n")
	return b.String()
}
