package truco

import (
	"iter"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// CommitEvents are the events a watch message carries, in order: its Events (a commit, with per_commit), or the
// one Event of a message of the per-event stream (a server older than per_commit).
func CommitEvents(message *trucov1.WatchGameResponse) []*trucov1.Event {
	if events := message.GetEvents(); len(events) > 0 {
		return events
	}
	if event := message.GetEvent(); event != nil {
		return []*trucov1.Event{event}
	}
	return nil
}

// CommitVersion is the newest version a watch message tells of: its last event's, or its view's (a seña keeps the
// version of the event before it, so the view's is never older).
func CommitVersion(message *trucov1.WatchGameResponse) int64 {
	newest := max(message.GetSeat().GetPublic().GetVersion(), message.GetPublic().GetVersion())
	if events := CommitEvents(message); len(events) > 0 {
		newest = max(newest, events[len(events)-1].GetVersion())
	}
	return newest
}

// PerEvent is a commit's message as the per-event stream's messages, one per event in order. The views after the
// commit go with its last event (Seat for a seat, and Public for anyone: a seat's view holds it); the events before
// it carry none, as no view after them was sent. The messages share the commit's events and views.
func PerEvent(message *trucov1.WatchGameResponse) []*trucov1.WatchGameResponse {
	events := CommitEvents(message)
	out := make([]*trucov1.WatchGameResponse, len(events))
	for i, event := range events {
		out[i] = &trucov1.WatchGameResponse{Event: event}
	}
	if len(out) > 0 {
		last := out[len(out)-1]
		last.Seat = message.GetSeat()
		last.Public = message.GetPublic()
		if last.Public == nil {
			last.Public = message.GetSeat().GetPublic()
		}
	}
	return out
}

// perEvent turns a sequence of commits into one of events, as Watch and Session.Events hand them: each event of a
// commit in order, the views after the commit with its last one (PerEvent). A failure ends it, yielded as is.
func perEvent(commits iter.Seq2[*trucov1.WatchGameResponse, error]) iter.Seq2[*trucov1.WatchGameResponse, error] {
	return func(yield func(*trucov1.WatchGameResponse, error) bool) {
		for commit, err := range commits {
			if err != nil {
				yield(nil, err)
				return
			}
			for _, item := range PerEvent(commit) {
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}
