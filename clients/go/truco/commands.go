package truco

import (
	"fmt"
	"math/rand/v2"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// Play is the command that plays a card from the hand.
func Play(card *trucov1.Card) *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_PlayCard{PlayCard: &trucov1.PlayCard{Card: card}}}
}

// Call is truco, retruco, vale cuatro, an envido or a flor raise.
func Call(kind trucov1.CallKind) *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_Call{Call: &trucov1.MakeCall{Call: kind}}}
}

// Answer is quiero (true) or no quiero (false) to the call pending against the seat's team.
func Answer(accept bool) *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_Answer{Answer: &trucov1.Answer{Accept: accept}}}
}

// Mazo is me voy al mazo.
func Mazo() *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_GoToMazo{GoToMazo: &trucov1.GoToMazo{}}}
}

// Sena is a seña to the seat's teammates.
func Sena(kind trucov1.Sena) *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_SendSena{SendSena: &trucov1.SendSena{Sena: kind}}}
}

// Perros is echar los perros; SkipPerros deals without them.
func Perros() *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_CallPerros{CallPerros: &trucov1.CallPerros{}}}
}

// SkipPerros deals the next hand without perros.
func SkipPerros() *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_SkipPerros{SkipPerros: &trucov1.SkipPerros{}}}
}

// AnswerPerros is the rivals' answer to the perros.
func AnswerPerros(acceptEnvido, acceptTruco bool) *trucov1.Command {
	return &trucov1.Command{Kind: &trucov1.Command_AnswerPerros{
		AnswerPerros: &trucov1.AnswerPerros{AcceptEnvido: acceptEnvido, AcceptTruco: acceptTruco},
	}}
}

// Describe is a short English description of a command ("play 1e", "call CALL_KIND_TRUCO", "quiero").
func Describe(command *trucov1.Command) string {
	switch kind := command.GetKind().(type) {
	case *trucov1.Command_PlayCard:
		return "play " + CardText(kind.PlayCard.GetCard())
	case *trucov1.Command_Call:
		return "call " + kind.Call.GetCall().String()
	case *trucov1.Command_Answer:
		if kind.Answer.GetAccept() {
			return "quiero"
		}
		return "no quiero"
	case *trucov1.Command_GoToMazo:
		return "me voy al mazo"
	case *trucov1.Command_SendSena:
		return "seña " + kind.SendSena.GetSena().String()
	case *trucov1.Command_CallPerros:
		return "echar los perros"
	case *trucov1.Command_SkipPerros:
		return "deal without perros"
	case *trucov1.Command_AnswerPerros:
		return fmt.Sprintf("answer perros: envido %v, truco %v", kind.AnswerPerros.GetAcceptEnvido(), kind.AnswerPerros.GetAcceptTruco())
	}
	return "empty command"
}

// Preference names what PickAction looks for: a command kind, or an exact answer.
type Preference string

// The preferences PickAction understands.
const (
	PreferPlayCard     Preference = "playCard"
	PreferCall         Preference = "call"
	PreferAnswer       Preference = "answer"
	PreferQuiero       Preference = "quiero"
	PreferNoQuiero     Preference = "noQuiero"
	PreferMazo         Preference = "goToMazo"
	PreferSena         Preference = "sendSena"
	PreferPerros       Preference = "callPerros"
	PreferSkipPerros   Preference = "skipPerros"
	PreferAnswerPerros Preference = "answerPerros"
)

// PlainBotPreferences: play a card, accept what is called, deal without perros; the mazo only when nothing
// else is legal.
var PlainBotPreferences = []Preference{PreferPlayCard, PreferQuiero, PreferSkipPerros, PreferAnswerPerros, PreferAnswer, PreferCall}

// PickAction returns one of the view's legal actions (exactly what the server accepts from the seat now): the
// first matching the earliest preference, else the first that is not the mazo, else the mazo. nil when the seat
// has nothing to do. A non-nil rng picks at random among the matches of a preference.
func PickAction(view *trucov1.SeatView, preferences []Preference, rng *rand.Rand) *trucov1.Command {
	actions := view.GetLegalActions()
	if len(actions) == 0 {
		return nil
	}
	choose := func(found []*trucov1.Command) *trucov1.Command {
		if rng == nil {
			return found[0]
		}
		return found[rng.IntN(len(found))]
	}
	for _, preference := range preferences {
		var found []*trucov1.Command
		for _, action := range actions {
			if matches(action, preference) {
				found = append(found, action)
			}
		}
		if len(found) > 0 {
			return choose(found)
		}
	}
	var notMazo []*trucov1.Command
	for _, action := range actions {
		if action.GetGoToMazo() == nil {
			notMazo = append(notMazo, action)
		}
	}
	if len(notMazo) > 0 {
		return choose(notMazo)
	}
	return choose(actions)
}

// IsMyTurn reports whether the match waits for this seat: it is in Public.ToAct (its card, its team's answer, its
// perros decision). Legal actions alone are not a turn: a seña is legal out of turn.
func IsMyTurn(view *trucov1.SeatView) bool {
	if view == nil {
		return false
	}
	for _, seat := range view.GetPublic().GetToAct() {
		if seat == view.GetSeat() {
			return true
		}
	}
	return false
}

// PlainBot is the example bots' policy, the same in every SDK: decline a falta envido or a contra flor al resto
// (they can end the match at once), otherwise PickAction with PlainBotPreferences on the seat's turn (never a
// seña).
func PlainBot(view *trucov1.SeatView) *trucov1.Command {
	pending := view.GetPublic().GetHand().GetPending().GetCall()
	if pending == trucov1.CallKind_CALL_KIND_FALTA_ENVIDO || pending == trucov1.CallKind_CALL_KIND_CONTRA_FLOR_AL_RESTO {
		if declined := PickAction(view, []Preference{PreferNoQuiero}, nil); declined.GetAnswer() != nil && !declined.GetAnswer().GetAccept() {
			return declined
		}
	}
	if !IsMyTurn(view) {
		return nil
	}
	return PickAction(view, PlainBotPreferences, nil)
}

// HasLegal reports whether the view offers a legal action of the given kind (a Preference).
func HasLegal(view *trucov1.SeatView, kind Preference) bool {
	for _, action := range view.GetLegalActions() {
		if matches(action, kind) {
			return true
		}
	}
	return false
}

func matches(action *trucov1.Command, preference Preference) bool {
	switch preference {
	case PreferPlayCard:
		return action.GetPlayCard() != nil
	case PreferCall:
		return action.GetCall() != nil
	case PreferAnswer:
		return action.GetAnswer() != nil
	case PreferQuiero:
		return action.GetAnswer() != nil && action.GetAnswer().GetAccept()
	case PreferNoQuiero:
		return action.GetAnswer() != nil && !action.GetAnswer().GetAccept()
	case PreferMazo:
		return action.GetGoToMazo() != nil
	case PreferSena:
		return action.GetSendSena() != nil
	case PreferPerros:
		return action.GetCallPerros() != nil
	case PreferSkipPerros:
		return action.GetSkipPerros() != nil
	case PreferAnswerPerros:
		return action.GetAnswerPerros() != nil
	}
	return false
}
