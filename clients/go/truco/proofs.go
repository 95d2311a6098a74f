package truco

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// CommitmentOf is the commitment of card at deck position with salt: SHA-256, lowercase hex, of
// "{position}|{card}|{salt}" (the card in notation, 7|1e|<salt>). HandDealt.Commitments (also
// HandView.Commitments) holds one per deck position; a card's proof arrives when the card is yours
// (SeatView.OwnProofs) or public (HandView.Proofs, CardPlayed.Proof, HandEnded.Proofs).
func CommitmentOf(position int32, card *trucov1.Card, salt string) (string, error) {
	text := CardText(card)
	if text == "?" {
		return "", fmt.Errorf("not a card of the deck: %v", card)
	}
	digest := sha256.Sum256([]byte(fmt.Sprintf("%d|%s|%s", position, text, salt)))
	return hex.EncodeToString(digest[:]), nil
}

// VerifyProof reports whether proof opens its position's commitment among the hand's 40 (a malformed card is no
// match).
func VerifyProof(commitments []string, proof *trucov1.CardProof) bool {
	position := proof.GetPosition()
	if position < 0 || int(position) >= len(commitments) {
		return false
	}
	expected, err := CommitmentOf(position, proof.GetCard(), proof.GetSalt())
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(expected), []byte(commitments[position])) == 1
}
