package truco

import (
	"context"
	"fmt"
	"testing"
	"time"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// watched is what a watch yielded: each item's event version, and its seat and public views' versions (0: none).
func watched(t *testing.T, items func(func(*trucov1.WatchGameResponse, error) bool)) [][3]int64 {
	t.Helper()
	var out [][3]int64
	for item, err := range items {
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		out = append(out, [3]int64{item.GetEvent().GetVersion(), item.GetSeat().GetPublic().GetVersion(), item.GetPublic().GetVersion()})
	}
	return out
}

func TestWatchAsksForCommitsAndYieldsEachEventInOrderWithTheViewOnTheLast(t *testing.T) {
	fake := &fakeGames{events: []int64{8, 9, 10}}
	client := serve(t, fake)
	ctx := context.Background()
	got := watched(t, client.Watch(ctx, "g1", 7, WatchOptions{}))
	if want := "[[8 0 0] [9 9 9] [10 10 10]]"; fmt.Sprint(got) != want {
		t.Errorf("watched %v, want %v (event, seat view, public view versions)", got, want)
	}
	if len(fake.watches) != 1 || !fake.watches[0].GetPerCommit() || fake.watches[0].GetAfterVersion() != 7 {
		t.Errorf("watch requests %v: want one with per_commit after 7", fake.watches)
	}
	needing(t)(client.GetView(ctx, "g1"))
	expectMinVersion(t, fake, 10, "the last watched commit's version")
}

func TestWatchCommitsYieldsCommitsWholeAndResumesAfterTheLastVersion(t *testing.T) {
	fake := &fakeGames{events: []int64{1, 2, 3, 4, 5}, breakAfter: 2}
	client := serveWith(t, fake, Options{Retries: 2, Backoff: time.Millisecond, Timeout: 5 * time.Second})
	var resumed []int64
	onResume := func(after int64, _ error) { resumed = append(resumed, after) }
	var commits [][]int64
	for commit, err := range client.WatchCommits(context.Background(), "g1", 0, WatchOptions{OnResume: onResume}) {
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		var versions []int64
		for _, event := range CommitEvents(commit) {
			versions = append(versions, event.GetVersion())
		}
		commits = append(commits, versions)
	}
	if fmt.Sprint(commits) != "[[1 2] [3 4] [5]]" || fmt.Sprint(resumed) != "[2]" {
		t.Errorf("commits %v, resumed after %v: want [[1 2] [3 4] [5]], [2]", commits, resumed)
	}
	if len(fake.watches) != 2 || fake.watches[1].GetAfterVersion() != 2 || !fake.watches[1].GetPerCommit() {
		t.Errorf("watch requests %v: the second must resume after 2 with per_commit", fake.watches)
	}
}

func TestWatchReadsAServerOlderThanPerCommit(t *testing.T) {
	fake := &fakeGames{events: []int64{1, 2}, released: true}
	client := serve(t, fake)
	if got := watched(t, client.Watch(context.Background(), "g1", 0, WatchOptions{})); fmt.Sprint(got) != "[[1 0 1] [2 0 2]]" {
		t.Errorf("watched %v: want each event with its public view", got)
	}
}

func TestEveryCallAboutOneGameNamesItForTheBalancer(t *testing.T) {
	fake := &fakeGames{events: []int64{1}}
	client := serve(t, fake)
	ctx := context.Background()
	_, _ = client.CreateGame(ctx, CreateOptions{})
	_, _ = client.JoinGame(ctx, "g1", 0, "ana")
	_, _ = client.GetView(ctx, "g1")
	_, _ = client.LegalActions(ctx, "games/g1")
	_, _ = client.Submit(ctx, "g1", Mazo(), 0)
	for range client.Watch(ctx, "g1", 0, WatchOptions{}) {
	}
	if session, err := client.Play(ctx, "g1", 0, PlayOptions{}); err == nil {
		for range session.Commits() { // the fake has no PlayGame: the session ends with UNIMPLEMENTED
		}
	}
	for range client.ListGames(ctx, 10) {
	}
	_, _ = client.GetGame(ctx, "g1")
	_, _ = client.LeaveGame(ctx, "g1")
	_, _ = client.ResumeSeat(ctx, "g1")
	_, _ = client.Rematch(ctx, "g1")
	_, _ = client.StartWithBots(ctx, "g1")
	_, _ = client.EvaluateHand(ctx, MustCard("1o"), nil, false)
	_, _ = client.CompareCards(ctx, MustCard("1o"), MustCard("2o"), MustCard("1e"))
	want := "[CreateGame - JoinGame games/g1 GetGameView games/g1 ListLegalActions games/g1 SubmitCommand games/g1 " +
		"WatchGame games/g1 PlayGame games/g1 ListGames - GetGame games/g1 LeaveGame games/g1 ResumeSeat games/g1 Rematch games/g1 " +
		"StartWithBots games/g1 EvaluateHand - CompareCards -]"
	if got := fmt.Sprint(fake.calls); got != want {
		t.Errorf("calls %v,\nwant %v", got, want)
	}
}
