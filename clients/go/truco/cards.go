package truco

import (
	"fmt"
	"strconv"
	"strings"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// Ranks are the ten ranks of each suit of the 40-card Spanish deck.
var Ranks = []int32{1, 2, 3, 4, 5, 6, 7, 10, 11, 12}

var suitByLetter = map[byte]trucov1.Suit{
	'e': trucov1.Suit_SUIT_ESPADA, 'b': trucov1.Suit_SUIT_BASTO, 'o': trucov1.Suit_SUIT_ORO, 'c': trucov1.Suit_SUIT_COPA,
}

var letters = []byte{'e', 'b', 'o', 'c'}

// ParseCard reads a card in the project's notation: number then suit letter ("1e" espada, "4b" basto, "7o" oro,
// "12c" copa), case and surrounding blanks ignored.
func ParseCard(text string) (*trucov1.Card, error) {
	cleaned := strings.ToLower(strings.TrimSpace(text))
	if len(cleaned) < 2 {
		return nil, fmt.Errorf("%q is not a card: write number then suit letter, like 1e or 12c", text)
	}
	suit, ok := suitByLetter[cleaned[len(cleaned)-1]]
	rank, err := strconv.Atoi(cleaned[:len(cleaned)-1])
	if !ok || err != nil || !validRank(int32(rank)) || strings.HasPrefix(cleaned, "0") {
		return nil, fmt.Errorf("%q is not a card of the 40-card deck: write number then suit letter, like 1e or 12c", text)
	}
	return &trucov1.Card{Rank: int32(rank), Suit: suit}, nil
}

// MustCard is ParseCard for literals: it panics on text that is not a card.
func MustCard(text string) *trucov1.Card {
	card, err := ParseCard(text)
	if err != nil {
		panic(err)
	}
	return card
}

// CardText is the notation of a card ("1e"); "?" for a rank or suit the deck lacks.
func CardText(card *trucov1.Card) string {
	for _, letter := range letters {
		if suitByLetter[letter] == card.GetSuit() && validRank(card.GetRank()) {
			return fmt.Sprintf("%d%c", card.GetRank(), letter)
		}
	}
	return "?"
}

// Deck is every card of the deck, in notation order (1e .. 12c).
func Deck() []*trucov1.Card {
	cards := make([]*trucov1.Card, 0, 40)
	for _, letter := range letters {
		for _, rank := range Ranks {
			cards = append(cards, &trucov1.Card{Rank: rank, Suit: suitByLetter[letter]})
		}
	}
	return cards
}

// SameCard reports whether two cards are the same card.
func SameCard(a, b *trucov1.Card) bool {
	return a.GetRank() == b.GetRank() && a.GetSuit() == b.GetSuit()
}

func validRank(rank int32) bool {
	for _, r := range Ranks {
		if r == rank {
			return true
		}
	}
	return false
}
