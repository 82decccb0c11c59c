package alerts

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// webhookPost is one POST's body and the steps (alerts of the request, by index)
// whose sends are in it.
type webhookPost struct {
	body  []byte
	steps []int
}

// formatPosts puts the steps' sends in as few POSTs as the format allows:
// at most MaxAlertsPerPost alerts each, and for Slack at most
// slackBlocksMax alerts and slackTextMax bytes of text, so that nothing is
// cut. A step's sends (a resolution and the opening that replaces it) go
// in one POST, so they are delivered, or not, together.
func formatPosts(req *Request, steps []step, now int64) ([]webhookPost, error) {
	var out []webhookPost
	var alerts []outgoing
	var idx []int
	text := 0
	flush := func() error {
		if len(alerts) == 0 {
			return nil
		}
		body, err := formatBody(req, alerts, now)
		if err != nil {
			return err
		}
		out = append(out, webhookPost{body: body, steps: idx})
		alerts, idx, text = nil, nil, 0
		return nil
	}
	for i, s := range steps {
		if len(s.sends) == 0 {
			continue
		}
		limit, size := MaxAlertsPerPost, 0
		if req.Format == FormatSlack {
			limit = slackBlocksMax
			for _, o := range s.sends {
				size += len(slackLine(o)) + len("\n\n")
			}
		}
		if len(alerts)+len(s.sends) > limit || (len(alerts) > 0 && text+size > slackTextMax) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		alerts = append(alerts, s.sends...)
		idx = append(idx, i)
		text += size
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// formatBody is a POST's body for alerts, in req's format.
func formatBody(req *Request, alerts []outgoing, now int64) ([]byte, error) {
	var v any
	switch req.Format {
	case FormatAlertmanager:
		v = alertmanagerBody(alerts, req.GeneratorURL)
	case FormatSlack:
		v = slackBody(alerts, req.SlackBlocks)
	default:
		v = jsonBody(alerts, now)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "the notification cannot be encoded: %v", err)
	}
	return b, nil
}

// rfc3339 is a millisecond time as Alertmanager reads it (RFC 3339, UTC).
func rfc3339(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// amAlert is Alertmanager's postableAlert (api/v2/openapi.yaml): labels
// identify the alert, annotations are informative, and an alert whose
// endsAt has passed is resolved.
type amAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     string            `json:"startsAt"`
	EndsAt       string            `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

func alertmanagerBody(alerts []outgoing, generator string) []amAlert {
	out := make([]amAlert, len(alerts))
	for i, a := range alerts {
		out[i] = amAlert{Labels: a.Labels, Annotations: emptyIfNil(a.Annotations), StartsAt: rfc3339(a.startsMs),
			EndsAt: rfc3339(a.endsMs), GeneratorURL: generator}
	}
	return out
}

// jsonAlert is one alert of the "json" format.
type jsonAlert struct {
	Key         string            `json:"key"`
	Status      string            `json:"status"` // firing or resolved
	State       string            `json:"state"`  // the word given: firing, WARN, ERR, OK, ...
	Reason      string            `json:"reason"` // opened, repeat or resolved
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    string            `json:"startsAt"`
	EndsAt      string            `json:"endsAt,omitempty"` // resolved alerts only
}

type jsonDoc struct {
	Version string      `json:"version"`
	Source  string      `json:"source"`
	Status  string      `json:"status"` // firing when any alert fires
	SentAt  string      `json:"sentAt"`
	Alerts  []jsonAlert `json:"alerts"`
}

func jsonBody(alerts []outgoing, now int64) jsonDoc {
	doc := jsonDoc{Version: "1", Source: "kadmin-lua", Status: StatusResolved, SentAt: rfc3339(now), Alerts: make([]jsonAlert, len(alerts))}
	for i, a := range alerts {
		ja := jsonAlert{Key: a.Key, Status: StatusResolved, State: a.Status, Reason: a.reason,
			Labels: emptyIfNil(a.Labels), Annotations: emptyIfNil(a.Annotations), StartsAt: rfc3339(a.startsMs)}
		if a.firing {
			ja.Status, doc.Status = "firing", "firing"
		} else {
			ja.EndsAt = rfc3339(a.endsMs)
		}
		doc.Alerts[i] = ja
	}
	return doc
}

func emptyIfNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Slack's limits: a message's text, a section's text, blocks per message.
const (
	slackTextMax    = 39000
	slackSectionMax = 3000
	slackBlocksMax  = 50
)

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type slackBlock struct {
	Type string     `json:"type"`
	Text *slackText `json:"text,omitempty"`
}

type slackMessage struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks,omitempty"`
}

func slackBody(alerts []outgoing, blocks bool) slackMessage {
	lines := make([]string, len(alerts))
	for i, a := range alerts {
		lines[i] = slackLine(a)
	}
	msg := slackMessage{Text: truncate(strings.Join(lines, "\n\n"), slackTextMax)}
	if blocks { // formatPosts sends at most slackBlocksMax alerts a message
		for _, l := range lines {
			msg.Blocks = append(msg.Blocks, slackBlock{Type: "section", Text: &slackText{Type: "mrkdwn", Text: truncate(l, slackSectionMax)}})
		}
	}
	return msg
}

// slackLine is one alert in Slack's mrkdwn: a mark, the status, the
// alert's title, then its description and its labels.
//
//	:red_circle: *WARN* KafkaConsumerLag: billing is 12000 behind
//	group=billing  topic=orders
func slackLine(a outgoing) string {
	mark, word := ":red_circle:", a.Status
	switch {
	case !a.firing:
		mark, word = ":large_green_circle:", "RESOLVED"
	case word == "firing":
		word = "FIRING"
	}
	title := a.Labels["alertname"]
	if title == "" {
		title = a.Key
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s *%s* %s", mark, slackEscape(word), slackEscape(title))
	if s := a.Annotations["summary"]; s != "" {
		b.WriteString(": " + slackEscape(s))
	}
	if a.reason == ReasonRepeat {
		b.WriteString(" (still open since " + rfc3339(a.startsMs) + ")")
	}
	if d := a.Annotations["description"]; d != "" {
		b.WriteString("\n" + slackEscape(d))
	}
	var labels []string
	for _, k := range vocab.SortedKeys(a.Labels) {
		if k != "alertname" {
			// A backquote would end the code span early.
			labels = append(labels, "`"+strings.ReplaceAll(slackEscape(k+"="+a.Labels[k]), "`", "'")+"`")
		}
	}
	if len(labels) > 0 {
		b.WriteString("\n" + strings.Join(labels, "  "))
	}
	return b.String()
}

// slackEscape escapes what Slack reads as markup: &, < and >.
var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func slackEscape(s string) string { return slackEscaper.Replace(s) }

// truncate keeps s under n bytes, cut at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
