package uy.truco.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Matches of Truco Uruguayo, with the server as the single source of truth.
 * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
 * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
 * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
 * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
 * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
 * rules' codes): INVALID_ARGUMENT for a malformed request,
 * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
 * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
 * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
 * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
 * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
 * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
 * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
 * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class GameServiceGrpc {

  private GameServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "truco.v1.GameService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.CreateGameRequest,
      uy.truco.v1.CreateGameResponse> getCreateGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateGame",
      requestType = uy.truco.v1.CreateGameRequest.class,
      responseType = uy.truco.v1.CreateGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.CreateGameRequest,
      uy.truco.v1.CreateGameResponse> getCreateGameMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.CreateGameRequest, uy.truco.v1.CreateGameResponse> getCreateGameMethod;
    if ((getCreateGameMethod = GameServiceGrpc.getCreateGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getCreateGameMethod = GameServiceGrpc.getCreateGameMethod) == null) {
          GameServiceGrpc.getCreateGameMethod = getCreateGameMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.CreateGameRequest, uy.truco.v1.CreateGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.CreateGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.CreateGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("CreateGame"))
              .build();
        }
      }
    }
    return getCreateGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.JoinGameRequest,
      uy.truco.v1.JoinGameResponse> getJoinGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "JoinGame",
      requestType = uy.truco.v1.JoinGameRequest.class,
      responseType = uy.truco.v1.JoinGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.JoinGameRequest,
      uy.truco.v1.JoinGameResponse> getJoinGameMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.JoinGameRequest, uy.truco.v1.JoinGameResponse> getJoinGameMethod;
    if ((getJoinGameMethod = GameServiceGrpc.getJoinGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getJoinGameMethod = GameServiceGrpc.getJoinGameMethod) == null) {
          GameServiceGrpc.getJoinGameMethod = getJoinGameMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.JoinGameRequest, uy.truco.v1.JoinGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "JoinGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.JoinGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.JoinGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("JoinGame"))
              .build();
        }
      }
    }
    return getJoinGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.GetGameViewRequest,
      uy.truco.v1.GetGameViewResponse> getGetGameViewMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetGameView",
      requestType = uy.truco.v1.GetGameViewRequest.class,
      responseType = uy.truco.v1.GetGameViewResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.GetGameViewRequest,
      uy.truco.v1.GetGameViewResponse> getGetGameViewMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.GetGameViewRequest, uy.truco.v1.GetGameViewResponse> getGetGameViewMethod;
    if ((getGetGameViewMethod = GameServiceGrpc.getGetGameViewMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getGetGameViewMethod = GameServiceGrpc.getGetGameViewMethod) == null) {
          GameServiceGrpc.getGetGameViewMethod = getGetGameViewMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.GetGameViewRequest, uy.truco.v1.GetGameViewResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetGameView"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.GetGameViewRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.GetGameViewResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("GetGameView"))
              .build();
        }
      }
    }
    return getGetGameViewMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.ListLegalActionsRequest,
      uy.truco.v1.ListLegalActionsResponse> getListLegalActionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListLegalActions",
      requestType = uy.truco.v1.ListLegalActionsRequest.class,
      responseType = uy.truco.v1.ListLegalActionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.ListLegalActionsRequest,
      uy.truco.v1.ListLegalActionsResponse> getListLegalActionsMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.ListLegalActionsRequest, uy.truco.v1.ListLegalActionsResponse> getListLegalActionsMethod;
    if ((getListLegalActionsMethod = GameServiceGrpc.getListLegalActionsMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getListLegalActionsMethod = GameServiceGrpc.getListLegalActionsMethod) == null) {
          GameServiceGrpc.getListLegalActionsMethod = getListLegalActionsMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.ListLegalActionsRequest, uy.truco.v1.ListLegalActionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListLegalActions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.ListLegalActionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.ListLegalActionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("ListLegalActions"))
              .build();
        }
      }
    }
    return getListLegalActionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.SubmitCommandRequest,
      uy.truco.v1.SubmitCommandResponse> getSubmitCommandMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SubmitCommand",
      requestType = uy.truco.v1.SubmitCommandRequest.class,
      responseType = uy.truco.v1.SubmitCommandResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.SubmitCommandRequest,
      uy.truco.v1.SubmitCommandResponse> getSubmitCommandMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.SubmitCommandRequest, uy.truco.v1.SubmitCommandResponse> getSubmitCommandMethod;
    if ((getSubmitCommandMethod = GameServiceGrpc.getSubmitCommandMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getSubmitCommandMethod = GameServiceGrpc.getSubmitCommandMethod) == null) {
          GameServiceGrpc.getSubmitCommandMethod = getSubmitCommandMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.SubmitCommandRequest, uy.truco.v1.SubmitCommandResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SubmitCommand"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.SubmitCommandRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.SubmitCommandResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("SubmitCommand"))
              .build();
        }
      }
    }
    return getSubmitCommandMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.WatchGameRequest,
      uy.truco.v1.WatchGameResponse> getWatchGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchGame",
      requestType = uy.truco.v1.WatchGameRequest.class,
      responseType = uy.truco.v1.WatchGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<uy.truco.v1.WatchGameRequest,
      uy.truco.v1.WatchGameResponse> getWatchGameMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.WatchGameRequest, uy.truco.v1.WatchGameResponse> getWatchGameMethod;
    if ((getWatchGameMethod = GameServiceGrpc.getWatchGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getWatchGameMethod = GameServiceGrpc.getWatchGameMethod) == null) {
          GameServiceGrpc.getWatchGameMethod = getWatchGameMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.WatchGameRequest, uy.truco.v1.WatchGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.WatchGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.WatchGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("WatchGame"))
              .build();
        }
      }
    }
    return getWatchGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.ListGamesRequest,
      uy.truco.v1.ListGamesResponse> getListGamesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGames",
      requestType = uy.truco.v1.ListGamesRequest.class,
      responseType = uy.truco.v1.ListGamesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.ListGamesRequest,
      uy.truco.v1.ListGamesResponse> getListGamesMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.ListGamesRequest, uy.truco.v1.ListGamesResponse> getListGamesMethod;
    if ((getListGamesMethod = GameServiceGrpc.getListGamesMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getListGamesMethod = GameServiceGrpc.getListGamesMethod) == null) {
          GameServiceGrpc.getListGamesMethod = getListGamesMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.ListGamesRequest, uy.truco.v1.ListGamesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGames"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.ListGamesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.ListGamesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("ListGames"))
              .build();
        }
      }
    }
    return getListGamesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.GetGameRequest,
      uy.truco.v1.GetGameResponse> getGetGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetGame",
      requestType = uy.truco.v1.GetGameRequest.class,
      responseType = uy.truco.v1.GetGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.GetGameRequest,
      uy.truco.v1.GetGameResponse> getGetGameMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.GetGameRequest, uy.truco.v1.GetGameResponse> getGetGameMethod;
    if ((getGetGameMethod = GameServiceGrpc.getGetGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getGetGameMethod = GameServiceGrpc.getGetGameMethod) == null) {
          GameServiceGrpc.getGetGameMethod = getGetGameMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.GetGameRequest, uy.truco.v1.GetGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.GetGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.GetGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("GetGame"))
              .build();
        }
      }
    }
    return getGetGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.LeaveGameRequest,
      uy.truco.v1.LeaveGameResponse> getLeaveGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "LeaveGame",
      requestType = uy.truco.v1.LeaveGameRequest.class,
      responseType = uy.truco.v1.LeaveGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.LeaveGameRequest,
      uy.truco.v1.LeaveGameResponse> getLeaveGameMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.LeaveGameRequest, uy.truco.v1.LeaveGameResponse> getLeaveGameMethod;
    if ((getLeaveGameMethod = GameServiceGrpc.getLeaveGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getLeaveGameMethod = GameServiceGrpc.getLeaveGameMethod) == null) {
          GameServiceGrpc.getLeaveGameMethod = getLeaveGameMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.LeaveGameRequest, uy.truco.v1.LeaveGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "LeaveGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.LeaveGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.LeaveGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("LeaveGame"))
              .build();
        }
      }
    }
    return getLeaveGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.ResumeSeatRequest,
      uy.truco.v1.ResumeSeatResponse> getResumeSeatMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResumeSeat",
      requestType = uy.truco.v1.ResumeSeatRequest.class,
      responseType = uy.truco.v1.ResumeSeatResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.ResumeSeatRequest,
      uy.truco.v1.ResumeSeatResponse> getResumeSeatMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.ResumeSeatRequest, uy.truco.v1.ResumeSeatResponse> getResumeSeatMethod;
    if ((getResumeSeatMethod = GameServiceGrpc.getResumeSeatMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getResumeSeatMethod = GameServiceGrpc.getResumeSeatMethod) == null) {
          GameServiceGrpc.getResumeSeatMethod = getResumeSeatMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.ResumeSeatRequest, uy.truco.v1.ResumeSeatResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResumeSeat"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.ResumeSeatRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.ResumeSeatResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("ResumeSeat"))
              .build();
        }
      }
    }
    return getResumeSeatMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.RematchRequest,
      uy.truco.v1.RematchResponse> getRematchMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Rematch",
      requestType = uy.truco.v1.RematchRequest.class,
      responseType = uy.truco.v1.RematchResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.RematchRequest,
      uy.truco.v1.RematchResponse> getRematchMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.RematchRequest, uy.truco.v1.RematchResponse> getRematchMethod;
    if ((getRematchMethod = GameServiceGrpc.getRematchMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getRematchMethod = GameServiceGrpc.getRematchMethod) == null) {
          GameServiceGrpc.getRematchMethod = getRematchMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.RematchRequest, uy.truco.v1.RematchResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Rematch"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.RematchRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.RematchResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("Rematch"))
              .build();
        }
      }
    }
    return getRematchMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static GameServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceStub>() {
        @java.lang.Override
        public GameServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceStub(channel, callOptions);
        }
      };
    return GameServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static GameServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceBlockingV2Stub>() {
        @java.lang.Override
        public GameServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return GameServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static GameServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceBlockingStub>() {
        @java.lang.Override
        public GameServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceBlockingStub(channel, callOptions);
        }
      };
    return GameServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static GameServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceFutureStub>() {
        @java.lang.Override
        public GameServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceFutureStub(channel, callOptions);
        }
      };
    return GameServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Matches of Truco Uruguayo, with the server as the single source of truth.
   * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
   * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
   * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
   * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
   * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
   * rules' codes): INVALID_ARGUMENT for a malformed request,
   * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
   * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
   * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
   * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
   * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
   * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
   * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
   * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Create a match. Seats listed in `bots` are played by the server; the others are open to JoinGame.
     * </pre>
     */
    default void createGame(uy.truco.v1.CreateGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.CreateGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Take a seat and receive its token (the server keeps only its hash). Retried with the same request id,
     * it returns the same seat and token: keep join request ids as secret as tokens.
     * </pre>
     */
    default void joinGame(uy.truco.v1.JoinGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.JoinGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getJoinGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller's view: its seat view with a token, the public view without.
     * </pre>
     */
    default void getGameView(uy.truco.v1.GetGameViewRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.GetGameViewResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetGameViewMethod(), responseObserver);
    }

    /**
     * <pre>
     * Exactly the commands the server would accept from the caller's seat now.
     * </pre>
     */
    default void listLegalActions(uy.truco.v1.ListLegalActionsRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.ListLegalActionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListLegalActionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Submit a command for the caller's seat. The reply comes once the move is durably stored.
     * </pre>
     */
    default void submitCommand(uy.truco.v1.SubmitCommandRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.SubmitCommandResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSubmitCommandMethod(), responseObserver);
    }

    /**
     * <pre>
     * Stream each new event with the caller's view after it, from `after_version`. Resume after a disconnect
     * by sending the last version received.
     * </pre>
     */
    default void watchGame(uy.truco.v1.WatchGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.WatchGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Open games (a seat free, not over, not closed), newest first, paginated: the caller's own (created with its API key,
     * or anonymously for a caller without one) and the public ones.
     * </pre>
     */
    default void listGames(uy.truco.v1.ListGamesRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.ListGamesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGamesMethod(), responseObserver);
    }

    /**
     * <pre>
     * The game resource: seats (with presence), clock settings, phase, scores, and its rematch links. Finished
     * and closed games stay readable until the server's retention removes them.
     * </pre>
     */
    default void getGame(uy.truco.v1.GetGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.GetGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller's player leaves its seat: a bot plays it (SeatLeft) until the player sends ResumeSeat.
     * </pre>
     */
    default void leaveGame(uy.truco.v1.LeaveGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.LeaveGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getLeaveGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller's player takes its seat back from the bot that played it (SeatResumed); the bot stops at the
     * next decision. A seat that was not taken over is left as it is.
     * </pre>
     */
    default void resumeSeat(uy.truco.v1.ResumeSeatRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.ResumeSeatResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResumeSeatMethod(), responseObserver);
    }

    /**
     * <pre>
     * Start the next match of a finished one: same rules, clock settings, bots and seats. Every seat of the
     * finished game is re-joined with the same seat token (and name); the two games name each other
     * (`next_game`, `previous_game`). Any seat may call it, any number of times: all get the same next game.
     * </pre>
     */
    default void rematch(uy.truco.v1.RematchRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.RematchResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRematchMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service GameService.
   * <pre>
   * Matches of Truco Uruguayo, with the server as the single source of truth.
   * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
   * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
   * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
   * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
   * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
   * rules' codes): INVALID_ARGUMENT for a malformed request,
   * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
   * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
   * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
   * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
   * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
   * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
   * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
   * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
   * </pre>
   */
  public static abstract class GameServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return GameServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service GameService.
   * <pre>
   * Matches of Truco Uruguayo, with the server as the single source of truth.
   * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
   * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
   * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
   * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
   * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
   * rules' codes): INVALID_ARGUMENT for a malformed request,
   * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
   * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
   * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
   * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
   * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
   * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
   * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
   * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
   * </pre>
   */
  public static final class GameServiceStub
      extends io.grpc.stub.AbstractAsyncStub<GameServiceStub> {
    private GameServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Create a match. Seats listed in `bots` are played by the server; the others are open to JoinGame.
     * </pre>
     */
    public void createGame(uy.truco.v1.CreateGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.CreateGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Take a seat and receive its token (the server keeps only its hash). Retried with the same request id,
     * it returns the same seat and token: keep join request ids as secret as tokens.
     * </pre>
     */
    public void joinGame(uy.truco.v1.JoinGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.JoinGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getJoinGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller's view: its seat view with a token, the public view without.
     * </pre>
     */
    public void getGameView(uy.truco.v1.GetGameViewRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.GetGameViewResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetGameViewMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Exactly the commands the server would accept from the caller's seat now.
     * </pre>
     */
    public void listLegalActions(uy.truco.v1.ListLegalActionsRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.ListLegalActionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListLegalActionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Submit a command for the caller's seat. The reply comes once the move is durably stored.
     * </pre>
     */
    public void submitCommand(uy.truco.v1.SubmitCommandRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.SubmitCommandResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSubmitCommandMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Stream each new event with the caller's view after it, from `after_version`. Resume after a disconnect
     * by sending the last version received.
     * </pre>
     */
    public void watchGame(uy.truco.v1.WatchGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.WatchGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Open games (a seat free, not over, not closed), newest first, paginated: the caller's own (created with its API key,
     * or anonymously for a caller without one) and the public ones.
     * </pre>
     */
    public void listGames(uy.truco.v1.ListGamesRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.ListGamesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGamesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The game resource: seats (with presence), clock settings, phase, scores, and its rematch links. Finished
     * and closed games stay readable until the server's retention removes them.
     * </pre>
     */
    public void getGame(uy.truco.v1.GetGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.GetGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller's player leaves its seat: a bot plays it (SeatLeft) until the player sends ResumeSeat.
     * </pre>
     */
    public void leaveGame(uy.truco.v1.LeaveGameRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.LeaveGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getLeaveGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller's player takes its seat back from the bot that played it (SeatResumed); the bot stops at the
     * next decision. A seat that was not taken over is left as it is.
     * </pre>
     */
    public void resumeSeat(uy.truco.v1.ResumeSeatRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.ResumeSeatResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResumeSeatMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Start the next match of a finished one: same rules, clock settings, bots and seats. Every seat of the
     * finished game is re-joined with the same seat token (and name); the two games name each other
     * (`next_game`, `previous_game`). Any seat may call it, any number of times: all get the same next game.
     * </pre>
     */
    public void rematch(uy.truco.v1.RematchRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.RematchResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRematchMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service GameService.
   * <pre>
   * Matches of Truco Uruguayo, with the server as the single source of truth.
   * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
   * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
   * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
   * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
   * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
   * rules' codes): INVALID_ARGUMENT for a malformed request,
   * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
   * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
   * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
   * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
   * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
   * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
   * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
   * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
   * </pre>
   */
  public static final class GameServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<GameServiceBlockingV2Stub> {
    private GameServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Create a match. Seats listed in `bots` are played by the server; the others are open to JoinGame.
     * </pre>
     */
    public uy.truco.v1.CreateGameResponse createGame(uy.truco.v1.CreateGameRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Take a seat and receive its token (the server keeps only its hash). Retried with the same request id,
     * it returns the same seat and token: keep join request ids as secret as tokens.
     * </pre>
     */
    public uy.truco.v1.JoinGameResponse joinGame(uy.truco.v1.JoinGameRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getJoinGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's view: its seat view with a token, the public view without.
     * </pre>
     */
    public uy.truco.v1.GetGameViewResponse getGameView(uy.truco.v1.GetGameViewRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetGameViewMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Exactly the commands the server would accept from the caller's seat now.
     * </pre>
     */
    public uy.truco.v1.ListLegalActionsResponse listLegalActions(uy.truco.v1.ListLegalActionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListLegalActionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Submit a command for the caller's seat. The reply comes once the move is durably stored.
     * </pre>
     */
    public uy.truco.v1.SubmitCommandResponse submitCommand(uy.truco.v1.SubmitCommandRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSubmitCommandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stream each new event with the caller's view after it, from `after_version`. Resume after a disconnect
     * by sending the last version received.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, uy.truco.v1.WatchGameResponse>
        watchGame(uy.truco.v1.WatchGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Open games (a seat free, not over, not closed), newest first, paginated: the caller's own (created with its API key,
     * or anonymously for a caller without one) and the public ones.
     * </pre>
     */
    public uy.truco.v1.ListGamesResponse listGames(uy.truco.v1.ListGamesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListGamesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The game resource: seats (with presence), clock settings, phase, scores, and its rematch links. Finished
     * and closed games stay readable until the server's retention removes them.
     * </pre>
     */
    public uy.truco.v1.GetGameResponse getGame(uy.truco.v1.GetGameRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's player leaves its seat: a bot plays it (SeatLeft) until the player sends ResumeSeat.
     * </pre>
     */
    public uy.truco.v1.LeaveGameResponse leaveGame(uy.truco.v1.LeaveGameRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getLeaveGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's player takes its seat back from the bot that played it (SeatResumed); the bot stops at the
     * next decision. A seat that was not taken over is left as it is.
     * </pre>
     */
    public uy.truco.v1.ResumeSeatResponse resumeSeat(uy.truco.v1.ResumeSeatRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getResumeSeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Start the next match of a finished one: same rules, clock settings, bots and seats. Every seat of the
     * finished game is re-joined with the same seat token (and name); the two games name each other
     * (`next_game`, `previous_game`). Any seat may call it, any number of times: all get the same next game.
     * </pre>
     */
    public uy.truco.v1.RematchResponse rematch(uy.truco.v1.RematchRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRematchMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service GameService.
   * <pre>
   * Matches of Truco Uruguayo, with the server as the single source of truth.
   * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
   * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
   * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
   * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
   * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
   * rules' codes): INVALID_ARGUMENT for a malformed request,
   * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
   * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
   * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
   * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
   * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
   * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
   * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
   * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
   * </pre>
   */
  public static final class GameServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<GameServiceBlockingStub> {
    private GameServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Create a match. Seats listed in `bots` are played by the server; the others are open to JoinGame.
     * </pre>
     */
    public uy.truco.v1.CreateGameResponse createGame(uy.truco.v1.CreateGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Take a seat and receive its token (the server keeps only its hash). Retried with the same request id,
     * it returns the same seat and token: keep join request ids as secret as tokens.
     * </pre>
     */
    public uy.truco.v1.JoinGameResponse joinGame(uy.truco.v1.JoinGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getJoinGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's view: its seat view with a token, the public view without.
     * </pre>
     */
    public uy.truco.v1.GetGameViewResponse getGameView(uy.truco.v1.GetGameViewRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetGameViewMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Exactly the commands the server would accept from the caller's seat now.
     * </pre>
     */
    public uy.truco.v1.ListLegalActionsResponse listLegalActions(uy.truco.v1.ListLegalActionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListLegalActionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Submit a command for the caller's seat. The reply comes once the move is durably stored.
     * </pre>
     */
    public uy.truco.v1.SubmitCommandResponse submitCommand(uy.truco.v1.SubmitCommandRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSubmitCommandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stream each new event with the caller's view after it, from `after_version`. Resume after a disconnect
     * by sending the last version received.
     * </pre>
     */
    public java.util.Iterator<uy.truco.v1.WatchGameResponse> watchGame(
        uy.truco.v1.WatchGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Open games (a seat free, not over, not closed), newest first, paginated: the caller's own (created with its API key,
     * or anonymously for a caller without one) and the public ones.
     * </pre>
     */
    public uy.truco.v1.ListGamesResponse listGames(uy.truco.v1.ListGamesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGamesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The game resource: seats (with presence), clock settings, phase, scores, and its rematch links. Finished
     * and closed games stay readable until the server's retention removes them.
     * </pre>
     */
    public uy.truco.v1.GetGameResponse getGame(uy.truco.v1.GetGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's player leaves its seat: a bot plays it (SeatLeft) until the player sends ResumeSeat.
     * </pre>
     */
    public uy.truco.v1.LeaveGameResponse leaveGame(uy.truco.v1.LeaveGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getLeaveGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's player takes its seat back from the bot that played it (SeatResumed); the bot stops at the
     * next decision. A seat that was not taken over is left as it is.
     * </pre>
     */
    public uy.truco.v1.ResumeSeatResponse resumeSeat(uy.truco.v1.ResumeSeatRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResumeSeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Start the next match of a finished one: same rules, clock settings, bots and seats. Every seat of the
     * finished game is re-joined with the same seat token (and name); the two games name each other
     * (`next_game`, `previous_game`). Any seat may call it, any number of times: all get the same next game.
     * </pre>
     */
    public uy.truco.v1.RematchResponse rematch(uy.truco.v1.RematchRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRematchMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service GameService.
   * <pre>
   * Matches of Truco Uruguayo, with the server as the single source of truth.
   * A game is one match, named `games/{game}`. Seats are joined for a seat token, sent on every later call as
   * `authorization: Bearer &lt;token&gt;` metadata; a call without a token is a spectator's and sees only public
   * information. Errors carry a google.rpc.Status with an ErrorInfo (domain `truco.v1`) whose `reason` is a
   * stable machine code (NOT_YOUR_TURN, CARD_NOT_IN_HAND, ENVIDO_CLOSED: an envido once a truco was accepted,
   * CALL_MISMATCH: an Answer naming another call than the pending one, ...; docs/rules.md §18 lists the
   * rules' codes): INVALID_ARGUMENT for a malformed request,
   * FAILED_PRECONDITION for an illegal move, ABORTED for a stale `expected_version`, NOT_FOUND for an unknown
   * game, UNAUTHENTICATED / PERMISSION_DENIED for a missing or wrong token, RESOURCE_EXHAUSTED for limits.
   * Third-party apps send an API key (from `truco keys create`) as `x-api-key: &lt;key&gt;` metadata. A server started
   * with --require-api-key refuses CreateGame and JoinGame without one (UNAUTHENTICATED, reason
   * API_KEY_REQUIRED; API_KEY_INVALID and API_KEY_REVOKED for a bad key). Quotas and rate limits apply per key,
   * or per client address for calls without a key: past one, a call fails with RESOURCE_EXHAUSTED, reason
   * QUOTA_EXCEEDED (ErrorInfo metadata `quota`, `limit`, `retry_after_seconds`), plus a google.rpc.RetryInfo
   * (when to retry) and a google.rpc.QuotaFailure (which quota, whom it charges).
   * </pre>
   */
  public static final class GameServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<GameServiceFutureStub> {
    private GameServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Create a match. Seats listed in `bots` are played by the server; the others are open to JoinGame.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.CreateGameResponse> createGame(
        uy.truco.v1.CreateGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Take a seat and receive its token (the server keeps only its hash). Retried with the same request id,
     * it returns the same seat and token: keep join request ids as secret as tokens.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.JoinGameResponse> joinGame(
        uy.truco.v1.JoinGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getJoinGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller's view: its seat view with a token, the public view without.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.GetGameViewResponse> getGameView(
        uy.truco.v1.GetGameViewRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetGameViewMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Exactly the commands the server would accept from the caller's seat now.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.ListLegalActionsResponse> listLegalActions(
        uy.truco.v1.ListLegalActionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListLegalActionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Submit a command for the caller's seat. The reply comes once the move is durably stored.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.SubmitCommandResponse> submitCommand(
        uy.truco.v1.SubmitCommandRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSubmitCommandMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Open games (a seat free, not over, not closed), newest first, paginated: the caller's own (created with its API key,
     * or anonymously for a caller without one) and the public ones.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.ListGamesResponse> listGames(
        uy.truco.v1.ListGamesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGamesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The game resource: seats (with presence), clock settings, phase, scores, and its rematch links. Finished
     * and closed games stay readable until the server's retention removes them.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.GetGameResponse> getGame(
        uy.truco.v1.GetGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller's player leaves its seat: a bot plays it (SeatLeft) until the player sends ResumeSeat.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.LeaveGameResponse> leaveGame(
        uy.truco.v1.LeaveGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getLeaveGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller's player takes its seat back from the bot that played it (SeatResumed); the bot stops at the
     * next decision. A seat that was not taken over is left as it is.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.ResumeSeatResponse> resumeSeat(
        uy.truco.v1.ResumeSeatRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResumeSeatMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Start the next match of a finished one: same rules, clock settings, bots and seats. Every seat of the
     * finished game is re-joined with the same seat token (and name); the two games name each other
     * (`next_game`, `previous_game`). Any seat may call it, any number of times: all get the same next game.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.RematchResponse> rematch(
        uy.truco.v1.RematchRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRematchMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_GAME = 0;
  private static final int METHODID_JOIN_GAME = 1;
  private static final int METHODID_GET_GAME_VIEW = 2;
  private static final int METHODID_LIST_LEGAL_ACTIONS = 3;
  private static final int METHODID_SUBMIT_COMMAND = 4;
  private static final int METHODID_WATCH_GAME = 5;
  private static final int METHODID_LIST_GAMES = 6;
  private static final int METHODID_GET_GAME = 7;
  private static final int METHODID_LEAVE_GAME = 8;
  private static final int METHODID_RESUME_SEAT = 9;
  private static final int METHODID_REMATCH = 10;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_GAME:
          serviceImpl.createGame((uy.truco.v1.CreateGameRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.CreateGameResponse>) responseObserver);
          break;
        case METHODID_JOIN_GAME:
          serviceImpl.joinGame((uy.truco.v1.JoinGameRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.JoinGameResponse>) responseObserver);
          break;
        case METHODID_GET_GAME_VIEW:
          serviceImpl.getGameView((uy.truco.v1.GetGameViewRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.GetGameViewResponse>) responseObserver);
          break;
        case METHODID_LIST_LEGAL_ACTIONS:
          serviceImpl.listLegalActions((uy.truco.v1.ListLegalActionsRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.ListLegalActionsResponse>) responseObserver);
          break;
        case METHODID_SUBMIT_COMMAND:
          serviceImpl.submitCommand((uy.truco.v1.SubmitCommandRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.SubmitCommandResponse>) responseObserver);
          break;
        case METHODID_WATCH_GAME:
          serviceImpl.watchGame((uy.truco.v1.WatchGameRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.WatchGameResponse>) responseObserver);
          break;
        case METHODID_LIST_GAMES:
          serviceImpl.listGames((uy.truco.v1.ListGamesRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.ListGamesResponse>) responseObserver);
          break;
        case METHODID_GET_GAME:
          serviceImpl.getGame((uy.truco.v1.GetGameRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.GetGameResponse>) responseObserver);
          break;
        case METHODID_LEAVE_GAME:
          serviceImpl.leaveGame((uy.truco.v1.LeaveGameRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.LeaveGameResponse>) responseObserver);
          break;
        case METHODID_RESUME_SEAT:
          serviceImpl.resumeSeat((uy.truco.v1.ResumeSeatRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.ResumeSeatResponse>) responseObserver);
          break;
        case METHODID_REMATCH:
          serviceImpl.rematch((uy.truco.v1.RematchRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.RematchResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getCreateGameMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.CreateGameRequest,
              uy.truco.v1.CreateGameResponse>(
                service, METHODID_CREATE_GAME)))
        .addMethod(
          getJoinGameMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.JoinGameRequest,
              uy.truco.v1.JoinGameResponse>(
                service, METHODID_JOIN_GAME)))
        .addMethod(
          getGetGameViewMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.GetGameViewRequest,
              uy.truco.v1.GetGameViewResponse>(
                service, METHODID_GET_GAME_VIEW)))
        .addMethod(
          getListLegalActionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.ListLegalActionsRequest,
              uy.truco.v1.ListLegalActionsResponse>(
                service, METHODID_LIST_LEGAL_ACTIONS)))
        .addMethod(
          getSubmitCommandMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.SubmitCommandRequest,
              uy.truco.v1.SubmitCommandResponse>(
                service, METHODID_SUBMIT_COMMAND)))
        .addMethod(
          getWatchGameMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              uy.truco.v1.WatchGameRequest,
              uy.truco.v1.WatchGameResponse>(
                service, METHODID_WATCH_GAME)))
        .addMethod(
          getListGamesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.ListGamesRequest,
              uy.truco.v1.ListGamesResponse>(
                service, METHODID_LIST_GAMES)))
        .addMethod(
          getGetGameMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.GetGameRequest,
              uy.truco.v1.GetGameResponse>(
                service, METHODID_GET_GAME)))
        .addMethod(
          getLeaveGameMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.LeaveGameRequest,
              uy.truco.v1.LeaveGameResponse>(
                service, METHODID_LEAVE_GAME)))
        .addMethod(
          getResumeSeatMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.ResumeSeatRequest,
              uy.truco.v1.ResumeSeatResponse>(
                service, METHODID_RESUME_SEAT)))
        .addMethod(
          getRematchMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.RematchRequest,
              uy.truco.v1.RematchResponse>(
                service, METHODID_REMATCH)))
        .build();
  }

  private static abstract class GameServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    GameServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return uy.truco.v1.GameServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("GameService");
    }
  }

  private static final class GameServiceFileDescriptorSupplier
      extends GameServiceBaseDescriptorSupplier {
    GameServiceFileDescriptorSupplier() {}
  }

  private static final class GameServiceMethodDescriptorSupplier
      extends GameServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    GameServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (GameServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new GameServiceFileDescriptorSupplier())
              .addMethod(getCreateGameMethod())
              .addMethod(getJoinGameMethod())
              .addMethod(getGetGameViewMethod())
              .addMethod(getListLegalActionsMethod())
              .addMethod(getSubmitCommandMethod())
              .addMethod(getWatchGameMethod())
              .addMethod(getListGamesMethod())
              .addMethod(getGetGameMethod())
              .addMethod(getLeaveGameMethod())
              .addMethod(getResumeSeatMethod())
              .addMethod(getRematchMethod())
              .build();
        }
      }
    }
    return result;
  }
}
