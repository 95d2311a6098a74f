package truco

import (
	"container/list"
	"errors"
	"strconv"
	"sync"
)

// MaxGamesSeen is how many games a Client remembers the newest version of; the least recently seen is forgotten
// first (a read of it then asks for the newest).
const MaxGamesSeen = 1024

// versionsSeen is, per game name, the highest public version seen in any reply or streamed event: a Client sends
// it back with its reads as min_version. A replica may then answer a read from memory when it already holds that
// version and has heard of no newer move: the answer is never older than what the client saw (its own moves
// included, wherever they were made; señas aside, which do not advance the version), and costs the server no
// event-store read. Safe for concurrent use.
type versionsSeen struct {
	mu       sync.Mutex
	maxGames int
	order    *list.List               // of *seenGame, the least recently seen first
	games    map[string]*list.Element // by game name, into order
}

type seenGame struct {
	name    string
	version int64
}

func newVersionsSeen(maxGames int) *versionsSeen {
	return &versionsSeen{maxGames: max(maxGames, 1), order: list.New(), games: map[string]*list.Element{}}
}

// saw records that version of game name was seen (an older one changes nothing but its recency; a game is
// remembered from its first version above 0).
func (s *versionsSeen) saw(name string, version int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if element, ok := s.games[name]; ok {
		game := element.Value.(*seenGame)
		game.version = max(game.version, version)
		s.order.MoveToBack(element)
		return
	}
	if version <= 0 {
		return
	}
	s.games[name] = s.order.PushBack(&seenGame{name: name, version: version})
	for s.order.Len() > s.maxGames {
		oldest := s.order.Remove(s.order.Front()).(*seenGame)
		delete(s.games, oldest.name)
	}
}

// of is the newest version of game name seen; 0 when none was.
func (s *versionsSeen) of(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if element, ok := s.games[name]; ok {
		return element.Value.(*seenGame).version
	}
	return 0
}

// len is how many games are remembered.
func (s *versionsSeen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// conflictVersion is the game's current version that a VERSION_CONFLICT error tells of (its ErrorInfo metadata
// "version"), or 0.
func conflictVersion(err error) int64 {
	var failure *Error
	if !errors.As(err, &failure) || !errors.Is(failure, ErrVersionConflict) {
		return 0
	}
	version, parseErr := strconv.ParseInt(failure.Metadata["version"], 10, 64)
	if parseErr != nil {
		return 0
	}
	return version
}
