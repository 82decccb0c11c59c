package engine

import (
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The before-state of the topic mutations needs, per topic, whether it
// exists, its id, its partition count and its replication factor; a
// Metadata response also lists every partition's leader, replicas and ISR.
// kmsg decodes all of it (three slices a partition): reading the state of
// 5,000 topics of 6 partitions before deleting them (a 945 KB response)
// was an eighth of the process's CPU, and more in the garbage collector. A
// skimRequest is that Metadata request with a response that keeps only the
// topics' summaries and steps over the partitions without allocating.

// topicSkim is one topic of a skimmed Metadata response.
type topicSkim struct {
	found      bool // the response listed the topic
	errorCode  int16
	id         [16]byte
	internal   bool
	partitions int
	rf         int // replicas of partition 0
}

// skimRequest is a Metadata request for the topics of want (name -> index
// in the result).
type skimRequest struct {
	*kmsg.MetadataRequest
	want map[string]int
}

func newSkimRequest(names []string) *skimRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = make([]kmsg.MetadataRequestTopic, len(names))
	want := make(map[string]int, len(names))
	for i := range names {
		req.Topics[i] = kmsg.NewMetadataRequestTopic()
		req.Topics[i].Topic = &names[i] // the request only reads it
		want[names[i]] = i
	}
	return &skimRequest{MetadataRequest: req, want: want}
}

func (r *skimRequest) ResponseKind() kmsg.Response {
	resp := &skimResponse{want: r.want}
	resp.Default()
	resp.Version = r.Version
	return resp
}

// skimResponse is a Metadata response read for its topics' summaries:
// topics[i] is want's topic i. Brokers and partitions are stepped over.
type skimResponse struct {
	kmsg.MetadataResponse // the version, the throttle; nothing else is filled
	want                  map[string]int
	topics                []topicSkim
}

// ReadFrom reads what kmsg's MetadataResponse.ReadFrom reads, for every
// version (0 to 13), keeping only the summaries.
func (v *skimResponse) ReadFrom(src []byte) error {
	version := v.Version
	flexible := version >= 9
	b := kbin.Reader{Src: src}
	arrayLen := func() int {
		if flexible {
			return int(b.CompactArrayLen())
		}
		return int(b.ArrayLen())
	}
	str := func() []byte { // a string or a nullable string
		n := 0
		if flexible {
			n = int(b.Uvarint()) - 1
		} else {
			n = int(b.Int16())
		}
		if n < 0 {
			return nil
		}
		return b.Span(n)
	}
	tags := func() {
		if !flexible {
			return
		}
		for n := b.Uvarint(); n > 0 && b.Ok(); n-- {
			b.Uvarint() // the tag
			b.Span(int(b.Uvarint()))
		}
	}
	int32s := func() int {
		n := arrayLen()
		b.Span(4 * max(n, 0))
		return n
	}
	if version >= 3 {
		v.ThrottleMillis = b.Int32()
	}
	for n := arrayLen(); n > 0 && b.Ok(); n-- { // brokers
		b.Int32()
		str()
		b.Int32()
		if version >= 1 {
			str()
		}
		tags()
	}
	if version >= 2 {
		str() // cluster id
	}
	if version >= 1 {
		b.Int32() // controller
	}
	v.topics = make([]topicSkim, len(v.want))
	for n := arrayLen(); n > 0 && b.Ok(); n-- {
		var t topicSkim
		t.errorCode = b.Int16()
		name := str()
		if version >= 10 {
			t.id = b.Uuid()
		}
		if version >= 1 {
			t.internal = b.Bool()
		}
		t.partitions = max(arrayLen(), 0)
		for p := 0; p < t.partitions && b.Ok(); p++ {
			b.Int16()
			partition := b.Int32()
			b.Int32() // leader
			if version >= 7 {
				b.Int32() // leader epoch
			}
			if replicas := int32s(); partition == 0 {
				t.rf = replicas
			}
			int32s() // ISR
			if version >= 5 {
				int32s() // offline replicas
			}
			tags()
		}
		if version >= 8 {
			b.Int32() // authorized operations
		}
		tags()
		if i, ok := v.want[string(name)]; ok && name != nil && !v.topics[i].found {
			t.found = true
			v.topics[i] = t
		}
	}
	if version >= 8 && version <= 10 {
		b.Int32()
	}
	if version >= 13 {
		v.ErrorCode = b.Int16()
	}
	tags()
	return b.Complete()
}
