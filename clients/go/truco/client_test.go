package truco

import (
	"context"
	"errors"
	"net"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/durationpb"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

func TestEveryRPCOfTheServiceHasAWrapper(t *testing.T) {
	var methods []string
	for _, service := range []grpc.ServiceDesc{trucov1.GameService_ServiceDesc, trucov1.RulesService_ServiceDesc, trucov1.PlayerService_ServiceDesc} {
		for _, method := range service.Methods {
			methods = append(methods, service.ServiceName+"/"+method.MethodName)
		}
		for _, stream := range service.Streams {
			methods = append(methods, service.ServiceName+"/"+stream.StreamName)
		}
	}
	var wrapped []string
	for method, wrapper := range Wrappers {
		wrapped = append(wrapped, method)
		if _, ok := reflect.TypeOf(&Client{}).MethodByName(wrapper); !ok {
			t.Errorf("%s: no method Client.%s", method, wrapper)
		}
	}
	sort.Strings(methods)
	sort.Strings(wrapped)
	if !reflect.DeepEqual(methods, wrapped) {
		t.Errorf("the service's methods %v, the wrapped ones %v", methods, wrapped)
	}
}

// quotaGames refuses the first submits with QUOTA_EXCEEDED and a RetryInfo of each delay, as the server does past
// a quota, and records the request ids it was sent.
type quotaGames struct {
	trucov1.UnimplementedGameServiceServer
	mu     sync.Mutex
	delays []time.Duration
	ids    []string
}

func (q *quotaGames) SubmitCommand(_ context.Context, request *trucov1.SubmitCommandRequest) (*trucov1.SubmitCommandResponse, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, request.GetRequestId())
	if len(q.delays) == 0 {
		return &trucov1.SubmitCommandResponse{Version: 2}, nil
	}
	delay := q.delays[0]
	q.delays = q.delays[1:]
	info := &errdetails.ErrorInfo{Reason: "QUOTA_EXCEEDED", Domain: Domain, Metadata: map[string]string{"quota": "q"}}
	st, err := status.New(codes.ResourceExhausted, "slow down").WithDetails(info, &errdetails.RetryInfo{RetryDelay: durationpb.New(delay)})
	if err != nil {
		return nil, err
	}
	return nil, st.Err()
}

func (q *quotaGames) JoinGame(_ context.Context, request *trucov1.JoinGameRequest) (*trucov1.JoinGameResponse, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, request.GetRequestId())
	return &trucov1.JoinGameResponse{SeatToken: "t", View: &trucov1.SeatView{}}, nil
}

func serveQuota(t *testing.T, fake *quotaGames, options Options) *Client {
	t.Helper()
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer()
	trucov1.RegisterGameServiceServer(server, fake)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	dialer := func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }
	conn, err := grpc.NewClient("passthrough:///bufnet", grpc.WithContextDialer(dialer),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return NewClient(conn, options)
}

func TestAQuotaRefusalIsRetriedAfterItsRetryInfoDelayWithTheSameRequestID(t *testing.T) {
	fake := &quotaGames{delays: []time.Duration{300 * time.Millisecond}}
	client := serveQuota(t, fake, Options{Retries: 2})
	started := time.Now()
	if _, err := client.Submit(context.Background(), "g1", Mazo(), 1); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(started); waited < 300*time.Millisecond {
		t.Errorf("retried after %v, before the 300ms the server asked for", waited)
	}
	if len(fake.ids) != 2 || fake.ids[0] != fake.ids[1] {
		t.Errorf("request ids %v: want the same one twice", fake.ids)
	}
}

func TestAQuotaRefusalLongerThanMaxQuotaWaitIsReturnedAtOnce(t *testing.T) {
	fake := &quotaGames{delays: []time.Duration{30 * time.Second}}
	client := serveQuota(t, fake, Options{Retries: 2, MaxQuotaWait: time.Second})
	_, err := client.Submit(context.Background(), "g1", Mazo(), 1)
	var failure *Error
	if !errors.Is(err, ErrResourceExhausted) || !errors.As(err, &failure) {
		t.Fatalf("got %v, want ErrResourceExhausted", err)
	}
	if failure.Reason != "QUOTA_EXCEEDED" || failure.RetryDelay != 30*time.Second || len(fake.ids) != 1 {
		t.Errorf("reason %q, delay %v, %d calls", failure.Reason, failure.RetryDelay, len(fake.ids))
	}
}

func TestVerifyProofOpensACommitmentOnlyWithItsPositionCardAndSalt(t *testing.T) {
	salt := "00000000000000000000000000000000"
	commitments := make([]string, 40)
	// The same vector as every SDK's test: SHA-256 of "7|1e|" and 32 zeros.
	commitments[7] = "667917eafbe4a15b4dd9c22e7016d4dba4b21054245a372c24f3223554060995"
	proof := func(position int32, card string) *trucov1.CardProof {
		return &trucov1.CardProof{Position: position, Card: MustCard(card), Salt: salt}
	}
	if !VerifyProof(commitments, proof(7, "1e")) {
		t.Error("the right proof was refused")
	}
	if VerifyProof(commitments, proof(7, "2e")) || VerifyProof(commitments, proof(8, "1e")) || VerifyProof(commitments, proof(40, "1e")) {
		t.Error("a wrong proof was accepted")
	}
}

func TestPlainBotWaitsForItsTurnAndDeclinesAFaltaEnvido(t *testing.T) {
	hand := &trucov1.HandView{Pending: &trucov1.PendingCall{Call: trucov1.CallKind_CALL_KIND_FALTA_ENVIDO}}
	public := &trucov1.MatchView{ToAct: []int32{1}, Hand: hand}
	view := &trucov1.SeatView{Seat: 1, Public: public, LegalActions: []*trucov1.Command{Answer(true), Answer(false), Mazo()}}
	if !IsMyTurn(view) || PlainBot(view).GetAnswer().GetAccept() {
		t.Error("seat 1 must decline the falta envido on its turn")
	}
	waiting := &trucov1.SeatView{Seat: 0, Public: public, LegalActions: []*trucov1.Command{Sena(trucov1.Sena_SENA_PIEZA_2)}}
	if IsMyTurn(waiting) || PlainBot(waiting) != nil {
		t.Error("a seat with only señas legal is not on its turn")
	}
}

func TestJoinGameSendsTheCallersRequestIDOrANewOne(t *testing.T) {
	fake := &quotaGames{}
	client := serveQuota(t, fake, Options{})
	chosen := NewRequestID()
	if _, err := client.JoinGameWithID(context.Background(), "g1", 0, "ana", chosen); err != nil {
		t.Fatal(err)
	}
	if _, err := client.JoinGame(context.Background(), "g1", -1, "ana"); err != nil {
		t.Fatal(err)
	}
	if len(fake.ids) != 2 || fake.ids[0] != chosen || len(fake.ids[1]) < 32 || fake.ids[1] == chosen {
		t.Errorf("request ids %v: want %q, then a new random one", fake.ids, chosen)
	}
}
