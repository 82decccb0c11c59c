package luaapi

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "peek", Area: "records",
			Params: []Param{
				{Name: "topic", Type: topicName, Doc: "the topic"},
				{Name: "partition", Type: partitionNum, Doc: "its partition"},
				{Name: "from", Type: peekFromType, Doc: "where to start (see below)"},
			},
			Options: []Field{
				{Name: "count", Type: Count(1).Between(1, engine.PeekMaxCount), Doc: fmt.Sprintf("records at most (default %d)", engine.PeekDefaultCount)},
				{Name: "max_bytes", Type: Count(1).Between(1, 1<<30), Doc: "bytes the result holds at most: keys, headers, and values when asked (default 1 MiB)"},
				{Name: "values", Type: Bool(), Doc: "include the records' values"},
				{Name: "format", Type: Enum(peekFormats...), Doc: `how keys, header values and values are shown: "text" (default), "hex" or "json"`},
				{Name: "read_committed", Type: Bool(), Doc: "skip aborted transactions' records, as a read_committed consumer does"},
				{Name: "decode", Type: decodeModeType, Doc: `decode keys and values written for a Schema Registry: "auto", "avro", "protobuf", "json", "none" (default), or {key=, value=} (see below)`},
				{Name: "key_schema", Type: localSchemaType, Doc: "decode every key with a local schema file: {file=, message=, framed=}"},
				{Name: "value_schema", Type: localSchemaType, Doc: "decode every value with a local schema file: {file=, message=, framed=}"},
			},
			Returns: "{{offset=int, timestamp=time, timestamp_type=string, key=json?, key_schema_id=int?, key_subject=string?, key_version=int?, headers={{key=string, value=string?}...}, size=int, value=json?, value_schema_id=int?, value_subject=string?, value_version=int?, error=error?}...}",
			Summary: "Read a few records of one partition, without a consumer group (read-only).",
			Doc: `from is an offset (an integer), "earliest" (the log start), "latest" (the last count records before the end: offsets high watermark - count up to it, as kcat -o -N does; fewer rows where transaction markers or compaction left gaps), {timestamp=ms} (the first record at or after the time; none when there is none) or {group="G"} (that group's committed offset on the partition: the next record it would read).
Each row has offset, timestamp (ms) and timestamp_type (CreateTime or LogAppendTime), key (nil for a null key), headers ({{key=, value=}...}), size (bytes of key and value) and, with values=true, value (nil for a null value, a tombstone).
format says how keys, header values and values are shown: "text" (default) is the bytes as text with what could drive a terminal escaped (controls as \x1b, bytes that are not UTF-8 as \xff) in every output, JSON too; "hex" is lowercase hex, the exact bytes; "json" parses the value as JSON into a Lua value (keys and headers stay text); a value that is not JSON keeps its text and the row gets an error (INVALID_JSON).
Bounded: count (default 10, at most 10,000) and max_bytes (default 1 MiB) of what the rows hold; fewer rows come back at the end of the partition or when the next record would pass max_bytes. A record that alone holds more than max_bytes is a row with its offset, timestamp and size and an error RECORD_TOO_LARGE instead of key, headers and value; rows go on after it. Decompression is bounded too, whatever --max-memory says: a compressed record batch that would decompress to more than 64 MiB (a decompression bomb: 1 MB of gzip can hold 1 GB) is not read, and is one row at its first offset with timestamp -1 and an error DECOMPRESS_LIMIT naming the partition and the batch's offsets; rows go on after the batch.
` + peekDecodeDoc + `
Read with raw Fetches to the partition's leader (compressed batches, transaction markers skipped; with read_committed, aborted records too): nothing joins a group or commits, and the call changes nothing.
An offset at the end gives no rows; one below the log start or past the end fails with OFFSET_OUT_OF_RANGE, a missing topic or partition with UNKNOWN_TOPIC_OR_PARTITION, a group with no commit on the partition with NO_COMMITTED_OFFSET, each naming the partition.`,
			Example: `for _, r in ipairs(peek("orders", 0, "earliest", {count = 3})) do print(r.offset, r.key, r.size) end
local last = peek("orders", 0, "latest", {count = 1, values = true})
print(#last, last[1].value)
local next_up = peek("orders", 4, {group = "orders-processor"}, {count = 1, values = true, format = "json"})
print(next_up[1].offset, next_up[1].value.status)
local stuck = peek("payments", 0, {group = "billing"}, {count = 1, decode = "auto"})
print(stuck[1].value_schema_id, stuck[1].value_subject, stuck[1].value_version, stuck[1].value.amount)`,
			Run: peekRun},
	)
}

var peekFormats = []string{"text", "hex", "json"}

// peekFromType is peek's from: an offset, "earliest"/"latest" (or an
// offset given as a string, as script arguments are), {timestamp=ms} or
// {group="G"}.
var peekFromType = OneOf(
	Custom(`"earliest", "latest" or an offset`, `"earliest"`, func(_ *reader, v lua.LValue, at string) (any, error) {
		s := strings.ToLower(strings.TrimSpace(string(v.(lua.LString))))
		switch s {
		case engine.PeekFromEarliest, engine.PeekFromLatest:
			return engine.PeekFrom{Kind: s}, nil
		}
		if n, ok := exactInt(v); ok && n >= 0 {
			return engine.PeekFrom{Kind: engine.PeekFromOffset, Offset: n}, nil
		}
		msg := fmt.Sprintf(`must be an offset, "earliest", "latest", {timestamp=ms} or {group="G"}, got %s`, describe(v))
		if near := suggest(s, []string{engine.PeekFromEarliest, engine.PeekFromLatest}); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, argErr(at, "%s", msg)
	}, lua.LTString).Like(Enum(engine.PeekFromEarliest, engine.PeekFromLatest)),
	Custom("an offset (int64 >= 0)", "0", func(r *reader, v lua.LValue, at string) (any, error) {
		n, err := Int64(0).Named("record offset").read(r, v, at)
		if err != nil {
			return nil, err
		}
		return engine.PeekFrom{Kind: engine.PeekFromOffset, Offset: n.(int64)}, nil
	}, lua.LTNumber).Like(Int64(0)),
	Record(
		Field{Name: "timestamp", Type: timestampMs, Doc: "the first record at or after this time"},
		Field{Name: "group", Type: groupID, Doc: "the group's committed offset on the partition"},
	).Then(func(rec Rec, at string) (any, error) {
		switch {
		case rec.Has("timestamp") && rec.Has("group"):
			return nil, argErr(at, "give timestamp or group, not both")
		case rec.Has("timestamp"):
			return engine.PeekFrom{Kind: engine.PeekFromTimestamp, Timestamp: get[int64](rec, "timestamp")}, nil
		case rec.Has("group"):
			return engine.PeekFrom{Kind: engine.PeekFromGroup, Group: get[string](rec, "group")}, nil
		}
		return nil, argErr(at, "must have timestamp= or group=")
	}).Sample(`{timestamp = 0}`),
).Described(`an offset, "earliest", "latest", {timestamp=ms} or {group="G"}`)

// peekRow is one record as peek returns it.
type peekRow struct {
	Offset        int64         `json:"offset"`
	Timestamp     int64         `json:"timestamp"`
	TimestampType string        `json:"timestamp_type"`
	Key           any           `json:"key,omitempty"`
	KeySchemaID   *int          `json:"key_schema_id,omitempty"`
	KeySubject    *string       `json:"key_subject,omitempty"`
	KeyVersion    *int          `json:"key_version,omitempty"`
	Headers       []peekHeader  `json:"headers"`
	Size          int           `json:"size"`
	Value         any           `json:"value,omitempty"`
	ValueSchemaID *int          `json:"value_schema_id,omitempty"`
	ValueSubject  *string       `json:"value_subject,omitempty"`
	ValueVersion  *int          `json:"value_version,omitempty"`
	Err           *engine.Error `json:"error,omitempty"`
}

type peekHeader struct {
	Key   string  `json:"key"`
	Value *string `json:"value,omitempty"`
}

// CodeInvalidJSON is a peeked row whose value is not JSON under
// format="json".
const CodeInvalidJSON = "INVALID_JSON"

func peekRun(c *Call) (any, error) {
	topic, partition := param[string](c, "topic"), param[int32](c, "partition")
	opts := engine.PeekOptions{Count: param[int](c, "count"), MaxBytes: param[int](c, "max_bytes"),
		Values: param[bool](c, "values"), ReadCommitted: param[bool](c, "read_committed")}
	format := param[string](c, "format")
	keyDec, valueDec, err := peekDecoders(c)
	if err != nil {
		return nil, err
	}
	opts.Values = opts.Values || valueDec.Active()
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	p, err := cl.Peek(c.Ctx(), topic, partition, param[engine.PeekFrom](c, "from"), opts)
	if err != nil {
		return nil, err
	}
	show := func(b []byte) string {
		if format == "hex" {
			return hex.EncodeToString(b)
		}
		return TerminalText(string(b))
	}
	shown := func(b []byte) *string {
		if b == nil {
			return nil
		}
		s := show(b)
		return &s
	}
	rows := make([]peekRow, 0, len(p.Records))
	decoding := newPeekDecoding(c, show)
	keyDec.Builder, valueDec.Builder = decoding, decoding
	for _, r := range p.Records {
		row := peekRow{Offset: r.Offset, Timestamp: r.Timestamp, TimestampType: r.TimestampType,
			Headers: make([]peekHeader, len(r.Headers)), Size: r.Size, Err: r.Err}
		if k := shown(r.Key); k != nil {
			row.Key = k
		}
		for i, h := range r.Headers {
			row.Headers[i] = peekHeader{Key: TerminalText(h.Key), Value: shown(h.Value)}
		}
		if r.Err == nil && keyDec.Active() && r.Key != nil {
			if d, ok := decoding.side(keyDec, r.Key, rowAt{topic, partition, r.Offset, "key"}, &row); ok {
				row.Key, row.KeySchemaID, row.KeySubject, row.KeyVersion = d.value, d.id, d.subject, d.version
			}
		}
		if opts.Values && r.Err == nil && !r.NullValue {
			if valueDec.Active() {
				if d, ok := decoding.side(valueDec, r.Value, rowAt{topic, partition, r.Offset, "value"}, &row); ok {
					row.Value, row.ValueSchemaID, row.ValueSubject, row.ValueVersion = d.value, d.id, d.subject, d.version
					rows = append(rows, row)
					continue
				}
			}
			switch format {
			case "json":
				v, jerr := c.rt.decodeJSON(string(r.Value), c.rt.null())
				if jerr != nil {
					row.Value = lua.LString(TerminalText(string(r.Value)))
					row.Err = cmp.Or(row.Err, &engine.Error{Code: CodeInvalidJSON, Resource: fmt.Sprintf("%s[%d]@%d", topic, partition, r.Offset),
						Message: fmt.Sprintf("the value is not JSON: %v", jerr)})
				} else {
					row.Value = v
				}
			default:
				row.Value = lua.LString(show(r.Value))
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}
