package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Need is what a function needs of a cluster beyond what every Kafka
// kadmin-lua supports has (3.9 and later, in ZooKeeper or KRaft mode). A
// function declares its needs as data; Check decides them from the
// cluster's ApiVersions answer (the APIs and versions it advertises, its
// finalized features, and from those its mode) before anything is sent.
type Need struct {
	// API is the request the function sends (a kmsg key) and MinVersion
	// its lowest version that does the function's work; Since is the first
	// Kafka release whose brokers advertise it ("4.1"). API is -1 when the
	// need is only a mode or a feature.
	API        int16
	MinVersion int16
	Since      string
	// KRaft: only a KRaft cluster answers it (a ZooKeeper cluster's
	// brokers do not advertise the API).
	KRaft bool
	// Feature must be finalized at FeatureLevel or above (KIP-584, as
	// describe_features shows it); What is what it enables ("share groups").
	Feature      string
	FeatureLevel int16
	What         string
	// Hint, when set, follows what a cluster lacks in the refusal: how a
	// release that has the need unadvertised can enable it, say.
	Hint string
}

// NeedAPI is the need of a request (at version v or above) that brokers
// advertise from Kafka release since on.
func NeedAPI(key kmsg.Key, v int16, since string) Need {
	return Need{API: int16(key), MinVersion: v, Since: since}
}

// NeedKRaft is the need of a request only KRaft clusters answer.
func NeedKRaft(key kmsg.Key, v int16, since string) Need {
	n := NeedAPI(key, v, since)
	n.KRaft = true
	return n
}

// NeedFeature is the need of a feature finalized at level or above.
func NeedFeature(feature string, level int16, what string) Need {
	return Need{API: -1, Feature: feature, FeatureLevel: level, What: what}
}

// String says the need in the words of the docs: "Kafka 4.1+
// (ListConfigResources v1)", "KRaft, Kafka 3.3+ (DescribeQuorum)",
// "feature share.version >= 1 (share groups)".
func (n Need) String() string {
	var parts []string
	if n.KRaft {
		parts = append(parts, "KRaft")
	}
	if n.API >= 0 {
		parts = append(parts, fmt.Sprintf("Kafka %s+ (%s)", n.Since, n.apiName()))
	}
	if n.Feature != "" {
		parts = append(parts, fmt.Sprintf("feature %s >= %d (%s)", n.Feature, n.FeatureLevel, n.What))
	}
	return strings.Join(parts, ", ")
}

func (n Need) apiName() string {
	if n.MinVersion > 0 {
		return fmt.Sprintf("%s v%d", APIName(n.API), n.MinVersion)
	}
	return APIName(n.API)
}

// Cluster modes, as Capabilities.Mode reports them.
const (
	ModeKRaft     = "kraft"
	ModeZooKeeper = "zookeeper"
)

// Capabilities is what a cluster can do, as one broker's ApiVersions
// answer says it.
type Capabilities struct {
	// APIs maps each advertised request key to its highest version.
	APIs map[int16]int16
	// Finalized maps each finalized feature to its level.
	Finalized map[string]int16
	// Mode is ModeKRaft when metadata.version is finalized (every KRaft
	// cluster since Kafka 3.3 has it) and ModeZooKeeper otherwise.
	Mode string
}

// Capabilities asks one broker's ApiVersions once per client (the answer
// is kept; a failed question is asked again next time).
func (c *Client) Capabilities(ctx context.Context) (*Capabilities, error) {
	if got := c.caps.Load(); got != nil {
		return got, nil
	}
	resp, err := c.askAPIVersions(ctx)
	if err != nil {
		return nil, err
	}
	caps := capabilitiesOf(resp)
	c.caps.CompareAndSwap(nil, caps)
	return c.caps.Load(), nil
}

func capabilitiesOf(resp *kmsg.ApiVersionsResponse) *Capabilities {
	caps := &Capabilities{APIs: map[int16]int16{}, Finalized: map[string]int16{}, Mode: ModeZooKeeper}
	for _, k := range resp.ApiKeys {
		caps.APIs[k.ApiKey] = k.MaxVersion
	}
	for _, f := range resp.FinalizedFeatures {
		if f.MaxVersionLevel > 0 {
			caps.Finalized[f.Name] = f.MaxVersionLevel
		}
	}
	if caps.Finalized["metadata.version"] > 0 {
		caps.Mode = ModeKRaft
	}
	return caps
}

// Check fails with UNSUPPORTED_VERSION, naming what is missing, when the
// cluster lacks one of needs. It sends nothing but that ApiVersions
// question (once per client).
func (c *Client) Check(ctx context.Context, needs ...Need) error {
	if len(needs) == 0 {
		return nil
	}
	caps, err := c.Capabilities(ctx)
	if err != nil {
		return err
	}
	for _, n := range needs {
		if msg := caps.Lacks(n); msg != "" {
			if n.Hint != "" {
				msg += " (" + n.Hint + ")"
			}
			return &Error{Code: ErrorName(kerr.UnsupportedVersion), Message: msg}
		}
	}
	return nil
}

// Lacks says what of n the cluster lacks, or "" when it has it all.
func (caps *Capabilities) Lacks(n Need) string {
	if n.KRaft && caps.Mode != ModeKRaft {
		return fmt.Sprintf("needs KRaft: this cluster runs ZooKeeper (%s is answered by KRaft clusters only)", APIName(n.API))
	}
	if n.API >= 0 {
		max, ok := caps.APIs[n.API]
		switch {
		case !ok:
			return fmt.Sprintf("needs Kafka %s+ (%s): this cluster's brokers do not advertise %s", n.Since, n.apiName(), APIName(n.API))
		case max < n.MinVersion:
			return fmt.Sprintf("needs Kafka %s+ (%s): this cluster's brokers advertise %s up to v%d", n.Since, n.apiName(), APIName(n.API), max)
		}
	}
	if n.Feature != "" {
		if lvl := caps.Finalized[n.Feature]; lvl < n.FeatureLevel {
			state := "not finalized"
			if lvl > 0 {
				state = fmt.Sprintf("finalized at %d", lvl)
			}
			return fmt.Sprintf("%s are not enabled on this cluster: needs the %s feature at level %d or above (it is %s; update_features raises it)",
				n.What, n.Feature, n.FeatureLevel, state)
		}
	}
	return ""
}
