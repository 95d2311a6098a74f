package uy.truco.client;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import uy.truco.v1.CardProof;
import uy.truco.v1.Command;
import uy.truco.v1.GameServiceGrpc;
import uy.truco.v1.HandView;
import uy.truco.v1.MatchView;
import uy.truco.v1.PendingCall;
import uy.truco.v1.CallKind;
import uy.truco.v1.RulesServiceGrpc;
import uy.truco.v1.SeatView;
import uy.truco.v1.Sena;
import uy.truco.v1.SubmitCommandRequest;
import uy.truco.v1.SubmitCommandResponse;

/**
 * What every SDK offers, checked in the Java one: a wrapper for each RPC of the service, quota refusals retried after
 * their RetryInfo delay with the same request id, the async API, proofs and the turn helpers. A plain (POJO)
 * Surefire test, as {@link TrucoClientTest}.
 */
public class SdkSurfaceTest {
  /** Refuses the first submits with QUOTA_EXCEEDED and a RetryInfo of each delay, and records the request ids. */
  static final class QuotaGames extends GameServiceGrpc.GameServiceImplBase {
    final List<Duration> delays = Collections.synchronizedList(new ArrayList<>());
    final List<String> ids = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void submitCommand(SubmitCommandRequest request, StreamObserver<SubmitCommandResponse> reply) {
      ids.add(request.getRequestId());
      if (!delays.isEmpty()) {
        Duration delay = delays.remove(0);
        ErrorInfo info = ErrorInfo.newBuilder().setReason("QUOTA_EXCEEDED").setDomain("truco.v1").build();
        RetryInfo retry = RetryInfo.newBuilder().setRetryDelay(com.google.protobuf.Duration.newBuilder()
            .setSeconds(delay.getSeconds()).setNanos(delay.getNano())).build();
        reply.onError(StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
            .setCode(Code.RESOURCE_EXHAUSTED_VALUE).setMessage("slow down")
            .addDetails(Any.pack(info)).addDetails(Any.pack(retry)).build()));
        return;
      }
      reply.onNext(SubmitCommandResponse.newBuilder().setVersion(2).build());
      reply.onCompleted();
    }
  }

  private QuotaGames fake;
  private Server server;
  private TrucoClient client;

  public void setUp() throws Exception {
    fake = new QuotaGames();
    server = ServerBuilder.forPort(0).addService(fake).build().start();
    client = TrucoClient.builder("localhost:" + server.getPort()).retries(2).maxQuotaWait(Duration.ofSeconds(1)).build();
  }

  public void tearDown() throws Exception {
    client.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  public void testEveryRpcOfTheServiceHasAWrapper() {
    Set<String> methods = new TreeSet<>();
    for (var service : List.of(GameServiceGrpc.getServiceDescriptor(), RulesServiceGrpc.getServiceDescriptor(),
        uy.truco.v1.PlayerServiceGrpc.getServiceDescriptor())) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        methods.add(method.getFullMethodName());
      }
    }
    assert methods.equals(new TreeSet<>(TrucoClient.WRAPPERS.keySet()))
        : "the service's methods " + methods + ", the wrapped ones " + TrucoClient.WRAPPERS.keySet();
    Set<String> blocking = Arrays.stream(TrucoClient.class.getMethods()).map(Method::getName).collect(Collectors.toSet());
    Set<String> async = Arrays.stream(AsyncTrucoClient.class.getMethods()).map(Method::getName).collect(Collectors.toSet());
    for (String wrapper : TrucoClient.WRAPPERS.values()) {
      assert blocking.contains(wrapper) : "no TrucoClient." + wrapper;
      assert async.contains(wrapper) : "no AsyncTrucoClient." + wrapper;
    }
  }

  public void testAQuotaRefusalIsRetriedAfterItsRetryInfoDelayWithTheSameRequestId() {
    fake.delays.add(Duration.ofMillis(300));
    long started = System.nanoTime();
    assert client.submit("g1", Commands.mazo(), 1).getVersion() == 2;
    long waited = (System.nanoTime() - started) / 1_000_000;
    assert waited >= 300 : "retried after " + waited + " ms, before the 300 ms the server asked for";
    assert fake.ids.size() == 2 && fake.ids.get(0).equals(fake.ids.get(1)) : "request ids " + fake.ids;
  }

  public void testAQuotaRefusalLongerThanMaxQuotaWaitIsThrownAtOnce() {
    fake.delays.add(Duration.ofSeconds(30));
    try {
      client.submit("g1", Commands.mazo(), 1);
      assert false : "not refused";
    } catch (TrucoException.ResourceExhausted refused) {
      assert refused.reason().equals("QUOTA_EXCEEDED") && refused.retryDelay().equals(Duration.ofSeconds(30));
    }
    assert fake.ids.size() == 1;
  }

  public void testTheAsyncApiCompletesWithTheReplyOrTheSameTypedError() throws InterruptedException {
    CompletableFuture<SubmitCommandResponse> done = client.async().submit("g1", Commands.mazo(), 1);
    try {
      assert done.get().getVersion() == 2;
      fake.delays.add(Duration.ofSeconds(30));
      client.async().submit("g1", Commands.mazo(), 1).get();
      assert false : "not refused";
    } catch (ExecutionException failure) {
      assert failure.getCause() instanceof TrucoException.ResourceExhausted : failure.getCause();
    }
  }

  public void testVerifyProofOpensACommitmentOnlyWithItsPositionCardAndSalt() {
    String salt = "0".repeat(32);
    List<String> commitments = new ArrayList<>(Collections.nCopies(40, ""));
    // The same vector as every SDK's test: SHA-256 of "7|1e|" and 32 zeros.
    commitments.set(7, "667917eafbe4a15b4dd9c22e7016d4dba4b21054245a372c24f3223554060995");
    assert Proofs.commitmentOf(7, Cards.card("1e"), salt).equals(commitments.get(7));
    assert Proofs.verifyProof(commitments, proof(7, "1e", salt));
    assert !Proofs.verifyProof(commitments, proof(7, "2e", salt));
    assert !Proofs.verifyProof(commitments, proof(8, "1e", salt));
    assert !Proofs.verifyProof(commitments, proof(40, "1e", salt));
  }

  private static CardProof proof(int position, String card, String salt) {
    return CardProof.newBuilder().setPosition(position).setCard(Cards.card(card)).setSalt(salt).build();
  }

  public void testPlainBotWaitsForItsTurnAndDeclinesAFaltaEnvido() {
    MatchView table = MatchView.newBuilder().addToAct(1)
        .setHand(HandView.newBuilder().setPending(PendingCall.newBuilder().setCall(CallKind.CALL_KIND_FALTA_ENVIDO)))
        .build();
    SeatView mine = SeatView.newBuilder().setSeat(1).setPublic(table)
        .addLegalActions(Commands.answer(true)).addLegalActions(Commands.answer(false)).build();
    assert Commands.isMyTurn(mine);
    Command chosen = Commands.plainBot(mine);
    assert chosen.hasAnswer() && !chosen.getAnswer().getAccept();
    SeatView waiting = SeatView.newBuilder().setSeat(0).setPublic(table)
        .addLegalActions(Commands.sena(Sena.SENA_PIEZA_2)).build();
    assert !Commands.isMyTurn(waiting) && Commands.plainBot(waiting) == null;
  }
}
