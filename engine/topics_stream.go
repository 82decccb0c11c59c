package engine

import (
	"context"
	"regexp"
	"slices"
)

// describe_topics of a whole cluster, streamed: a million partitions are
// described a page at a time (DescribeTopicPartitions pages, eachTopic)
// and handed over in pages of topics as they come, so that neither the
// engine nor a script that keeps none of them holds the whole cluster.

// TopicsOptions choose and page a streamed describe.
type TopicsOptions struct {
	// Match and Exclude (RE2, unanchored) choose topics by name as they
	// come: a topic left out is never made into a description.
	Match, Exclude *regexp.Regexp
	// PagePartitions is about how many partitions a page of topics holds
	// (DefaultTopicPagePartitions when 0); a topic is never split.
	PagePartitions int
}

// DefaultTopicPagePartitions: a page of topics handed over holds about
// this many partitions.
const DefaultTopicPagePartitions = 20_000

func (o TopicsOptions) chooses(name string) bool {
	return (o.Match == nil || o.Match.MatchString(name)) && (o.Exclude == nil || !o.Exclude.MatchString(name))
}

// TopicCursor hands over a streamed describe a page at a time
// (OpenTopics). Not safe for concurrent use; Close it when done.
type TopicCursor struct {
	pages  chan topicPage
	cancel context.CancelFunc
	done   bool
}

type topicPage struct {
	topics []TopicDescription
	err    error
}

// OpenTopics describes names (every topic, internal ones included, when
// empty) in name order, a page at a time, reading the next page while the
// caller uses one. Topics caught half-made (leaders not elected yet) are
// described again by name at the end, in the last page.
func (c *Client) OpenTopics(ctx context.Context, names []string, o TopicsOptions) *TopicCursor {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	ctx, cancel := context.WithCancel(ctx)
	cur := &TopicCursor{pages: make(chan topicPage, 1), cancel: cancel}
	limit := o.PagePartitions
	if limit <= 0 {
		limit = DefaultTopicPagePartitions
	}
	go func() {
		defer close(cur.pages)
		send := func(p topicPage) bool {
			select {
			case cur.pages <- p:
				return true
			case <-ctx.Done():
				return false
			}
		}
		var (
			page    []TopicDescription
			parts   int
			again   []string
			stopped bool
			last    string // topics come in name order; eachTopic may start again with another broker
			seen    bool
		)
		err := c.eachTopic(ctx, names, func(t topicAnswer) {
			if stopped || (seen && t.Topic <= last) {
				return
			}
			seen, last = true, t.Topic
			if !o.chooses(t.Topic) {
				return
			}
			d, retry := describedTopic(t)
			if retry != nil {
				// Half made, missing or failed: asked again by name at
				// the end, which says which.
				again = append(again, t.Topic)
				return
			}
			page = append(page, d)
			if parts += len(d.Partitions) + 1; parts >= limit {
				stopped = !send(topicPage{topics: page})
				page, parts = nil, 0
			}
		})
		switch {
		case err != nil:
			send(topicPage{err: err})
			return
		case stopped:
			return
		}
		if len(again) > 0 {
			more, err := c.DescribeTopics(ctx, again)
			if err != nil {
				send(topicPage{err: err})
				return
			}
			page = append(page, more...)
		}
		if len(page) > 0 {
			send(topicPage{topics: page})
		}
	}()
	return cur
}

// Next returns the next page of topics, nil (and no error) after the last.
func (cur *TopicCursor) Next() ([]TopicDescription, error) {
	if cur.done {
		return nil, nil
	}
	p, ok := <-cur.pages
	if !ok {
		cur.done = true
		return nil, nil
	}
	if p.err != nil {
		cur.Close()
		return nil, p.err
	}
	return p.topics, nil
}

// Close stops the describe.
func (cur *TopicCursor) Close() {
	cur.done = true
	cur.cancel()
	for range cur.pages { // let the reader end
	}
}
