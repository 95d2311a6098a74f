package uy.truco.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import uy.truco.v1.Answer;
import uy.truco.v1.AnswerPerros;
import uy.truco.v1.CallKind;
import uy.truco.v1.CallPerros;
import uy.truco.v1.Card;
import uy.truco.v1.Command;
import uy.truco.v1.GoToMazo;
import uy.truco.v1.MakeCall;
import uy.truco.v1.PlayCard;
import uy.truco.v1.SeatView;
import uy.truco.v1.SendSena;
import uy.truco.v1.Sena;
import uy.truco.v1.SkipPerros;

/** Commands for {@link TrucoClient#submit}, and helpers to pick one of a view's legal actions. */
public final class Commands {
  private Commands() {}

  /** Play a card from the hand. */
  public static Command play(Card card) {
    return Command.newBuilder().setPlayCard(PlayCard.newBuilder().setCard(card)).build();
  }

  /** Play a card written in notation ("1e"). */
  public static Command play(String card) {
    return play(Cards.card(card));
  }

  /** Call truco, retruco, vale cuatro, an envido or a flor raise. */
  public static Command call(CallKind kind) {
    return Command.newBuilder().setCall(MakeCall.newBuilder().setCall(kind)).build();
  }

  /** Quiero (true) or no quiero (false). */
  public static Command answer(boolean accept) {
    return Command.newBuilder().setAnswer(Answer.newBuilder().setAccept(accept)).build();
  }

  /** Me voy al mazo. */
  public static Command mazo() {
    return Command.newBuilder().setGoToMazo(GoToMazo.getDefaultInstance()).build();
  }

  /** A seña to the teammates. */
  public static Command sena(Sena sena) {
    return Command.newBuilder().setSendSena(SendSena.newBuilder().setSena(sena)).build();
  }

  /** Echar los perros. */
  public static Command perros() {
    return Command.newBuilder().setCallPerros(CallPerros.getDefaultInstance()).build();
  }

  /** Deal without perros. */
  public static Command skipPerros() {
    return Command.newBuilder().setSkipPerros(SkipPerros.getDefaultInstance()).build();
  }

  /** The rivals' answer to the perros. */
  public static Command answerPerros(boolean acceptEnvido, boolean acceptTruco) {
    return Command.newBuilder()
        .setAnswerPerros(AnswerPerros.newBuilder().setAcceptEnvido(acceptEnvido).setAcceptTruco(acceptTruco))
        .build();
  }

  /** What {@link #pickAction} looks for: a command kind, or an exact answer. */
  public enum Preference { PLAY_CARD, CALL, ANSWER, QUIERO, NO_QUIERO, GO_TO_MAZO, SEND_SENA, CALL_PERROS, SKIP_PERROS, ANSWER_PERROS }

  /** Play a card, accept what is called, deal without perros; the mazo only when nothing else is legal. */
  public static final List<Preference> PLAIN_BOT = Collections.unmodifiableList(Arrays.asList(
      Preference.PLAY_CARD, Preference.QUIERO, Preference.SKIP_PERROS, Preference.ANSWER_PERROS, Preference.ANSWER,
      Preference.CALL));

  /**
   * One of the view's legal actions (exactly what the server accepts from the seat now): the first matching the
   * earliest preference, else the first that is not the mazo, else the mazo; null when the seat has nothing to do.
   */
  public static Command pickAction(SeatView view, List<Preference> preferences) {
    List<Command> actions = view.getLegalActionsList();
    if (actions.isEmpty()) {
      return null;
    }
    for (Preference preference : preferences) {
      for (Command action : actions) {
        if (matches(action, preference)) {
          return action;
        }
      }
    }
    List<Command> notMazo = new ArrayList<>();
    for (Command action : actions) {
      if (!action.hasGoToMazo()) {
        notMazo.add(action);
      }
    }
    return notMazo.isEmpty() ? actions.get(0) : notMazo.get(0);
  }

  /** {@link #pickAction} with {@link #PLAIN_BOT}. */
  public static Command pickAction(SeatView view) {
    return pickAction(view, PLAIN_BOT);
  }

  /**
   * Whether the match waits for this seat: it is in {@code public.to_act} (its card, its team's answer, its perros
   * decision). Legal actions alone are not a turn: a seña is legal out of turn.
   */
  public static boolean isMyTurn(SeatView view) {
    return view != null && view.getPublic().getToActList().contains(view.getSeat());
  }

  /**
   * The example bots' policy, the same in every SDK: decline a falta envido or a contra flor al resto (they can end
   * the match at once), otherwise {@link #pickAction} with {@link #PLAIN_BOT} on the seat's turn (never a seña).
   */
  public static Command plainBot(SeatView view) {
    CallKind pending = view.getPublic().getHand().getPending().getCall();
    if (pending == CallKind.CALL_KIND_FALTA_ENVIDO || pending == CallKind.CALL_KIND_CONTRA_FLOR_AL_RESTO) {
      Command declined = pickAction(view, Collections.singletonList(Preference.NO_QUIERO));
      if (declined != null && declined.hasAnswer() && !declined.getAnswer().getAccept()) {
        return declined;
      }
    }
    return isMyTurn(view) ? pickAction(view, PLAIN_BOT) : null;
  }

  /** Whether the view offers a legal action matching {@code kind}. */
  public static boolean hasLegal(SeatView view, Preference kind) {
    return view.getLegalActionsList().stream().anyMatch(action -> matches(action, kind));
  }

  private static boolean matches(Command action, Preference preference) {
    return switch (preference) {
      case PLAY_CARD -> action.hasPlayCard();
      case CALL -> action.hasCall();
      case ANSWER -> action.hasAnswer();
      case QUIERO -> action.hasAnswer() && action.getAnswer().getAccept();
      case NO_QUIERO -> action.hasAnswer() && !action.getAnswer().getAccept();
      case GO_TO_MAZO -> action.hasGoToMazo();
      case SEND_SENA -> action.hasSendSena();
      case CALL_PERROS -> action.hasCallPerros();
      case SKIP_PERROS -> action.hasSkipPerros();
      case ANSWER_PERROS -> action.hasAnswerPerros();
    };
  }
}
