package uy.truco.client;

import uy.truco.v1.MatchTicket;
import uy.truco.v1.TicketState;

/**
 * A quick match that found no game: its ticket EXPIRED (its wait ran out) or was CANCELLED (by CancelMatch from
 * elsewhere). Not a refused call: {@link #ticket()} is how the ticket ended.
 */
public class NoMatchException extends RuntimeException {
  private final transient MatchTicket ticket;

  /** A ticket that ended without a match (null: its stream ended before its first message). */
  public NoMatchException(MatchTicket ticket) {
    super("no match: the ticket ended " + (ticket == null ? "before it opened" : ticket.getState()));
    this.ticket = ticket;
  }

  /** How the ticket ended (null when it never opened). */
  public MatchTicket ticket() { return ticket; }

  /** The state it ended in (UNSPECIFIED when it never opened). */
  public TicketState state() {
    return ticket == null ? TicketState.TICKET_STATE_UNSPECIFIED : ticket.getState();
  }
}
