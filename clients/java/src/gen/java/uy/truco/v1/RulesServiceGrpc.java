package uy.truco.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * The rules calculator: stateless questions about hands and cards. No authentication.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class RulesServiceGrpc {

  private RulesServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "truco.v1.RulesService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.EvaluateHandRequest,
      uy.truco.v1.EvaluateHandResponse> getEvaluateHandMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "EvaluateHand",
      requestType = uy.truco.v1.EvaluateHandRequest.class,
      responseType = uy.truco.v1.EvaluateHandResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.EvaluateHandRequest,
      uy.truco.v1.EvaluateHandResponse> getEvaluateHandMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.EvaluateHandRequest, uy.truco.v1.EvaluateHandResponse> getEvaluateHandMethod;
    if ((getEvaluateHandMethod = RulesServiceGrpc.getEvaluateHandMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getEvaluateHandMethod = RulesServiceGrpc.getEvaluateHandMethod) == null) {
          RulesServiceGrpc.getEvaluateHandMethod = getEvaluateHandMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.EvaluateHandRequest, uy.truco.v1.EvaluateHandResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "EvaluateHand"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.EvaluateHandRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.EvaluateHandResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("EvaluateHand"))
              .build();
        }
      }
    }
    return getEvaluateHandMethod;
  }

  private static volatile io.grpc.MethodDescriptor<uy.truco.v1.CompareCardsRequest,
      uy.truco.v1.CompareCardsResponse> getCompareCardsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CompareCards",
      requestType = uy.truco.v1.CompareCardsRequest.class,
      responseType = uy.truco.v1.CompareCardsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<uy.truco.v1.CompareCardsRequest,
      uy.truco.v1.CompareCardsResponse> getCompareCardsMethod() {
    io.grpc.MethodDescriptor<uy.truco.v1.CompareCardsRequest, uy.truco.v1.CompareCardsResponse> getCompareCardsMethod;
    if ((getCompareCardsMethod = RulesServiceGrpc.getCompareCardsMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getCompareCardsMethod = RulesServiceGrpc.getCompareCardsMethod) == null) {
          RulesServiceGrpc.getCompareCardsMethod = getCompareCardsMethod =
              io.grpc.MethodDescriptor.<uy.truco.v1.CompareCardsRequest, uy.truco.v1.CompareCardsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CompareCards"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.CompareCardsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  uy.truco.v1.CompareCardsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("CompareCards"))
              .build();
        }
      }
    }
    return getCompareCardsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RulesServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceStub>() {
        @java.lang.Override
        public RulesServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceStub(channel, callOptions);
        }
      };
    return RulesServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static RulesServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceBlockingV2Stub>() {
        @java.lang.Override
        public RulesServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return RulesServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RulesServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceBlockingStub>() {
        @java.lang.Override
        public RulesServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceBlockingStub(channel, callOptions);
        }
      };
    return RulesServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RulesServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceFutureStub>() {
        @java.lang.Override
        public RulesServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceFutureStub(channel, callOptions);
        }
      };
    return RulesServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * The rules calculator: stateless questions about hands and cards. No authentication.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Envido points, flor and card strengths of a three-card hand under a muestra (what `truco eval` prints).
     * Errors: INVALID_ARGUMENT for a card that does not exist or a card repeated (muestra included).
     * </pre>
     */
    default void evaluateHand(uy.truco.v1.EvaluateHandRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.EvaluateHandResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getEvaluateHandMethod(), responseObserver);
    }

    /**
     * <pre>
     * Which of two cards wins a round under a muestra. Errors: INVALID_ARGUMENT for a malformed card.
     * </pre>
     */
    default void compareCards(uy.truco.v1.CompareCardsRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.CompareCardsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCompareCardsMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service RulesService.
   * <pre>
   * The rules calculator: stateless questions about hands and cards. No authentication.
   * </pre>
   */
  public static abstract class RulesServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return RulesServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service RulesService.
   * <pre>
   * The rules calculator: stateless questions about hands and cards. No authentication.
   * </pre>
   */
  public static final class RulesServiceStub
      extends io.grpc.stub.AbstractAsyncStub<RulesServiceStub> {
    private RulesServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Envido points, flor and card strengths of a three-card hand under a muestra (what `truco eval` prints).
     * Errors: INVALID_ARGUMENT for a card that does not exist or a card repeated (muestra included).
     * </pre>
     */
    public void evaluateHand(uy.truco.v1.EvaluateHandRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.EvaluateHandResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getEvaluateHandMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Which of two cards wins a round under a muestra. Errors: INVALID_ARGUMENT for a malformed card.
     * </pre>
     */
    public void compareCards(uy.truco.v1.CompareCardsRequest request,
        io.grpc.stub.StreamObserver<uy.truco.v1.CompareCardsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCompareCardsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service RulesService.
   * <pre>
   * The rules calculator: stateless questions about hands and cards. No authentication.
   * </pre>
   */
  public static final class RulesServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<RulesServiceBlockingV2Stub> {
    private RulesServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Envido points, flor and card strengths of a three-card hand under a muestra (what `truco eval` prints).
     * Errors: INVALID_ARGUMENT for a card that does not exist or a card repeated (muestra included).
     * </pre>
     */
    public uy.truco.v1.EvaluateHandResponse evaluateHand(uy.truco.v1.EvaluateHandRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getEvaluateHandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Which of two cards wins a round under a muestra. Errors: INVALID_ARGUMENT for a malformed card.
     * </pre>
     */
    public uy.truco.v1.CompareCardsResponse compareCards(uy.truco.v1.CompareCardsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCompareCardsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service RulesService.
   * <pre>
   * The rules calculator: stateless questions about hands and cards. No authentication.
   * </pre>
   */
  public static final class RulesServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<RulesServiceBlockingStub> {
    private RulesServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Envido points, flor and card strengths of a three-card hand under a muestra (what `truco eval` prints).
     * Errors: INVALID_ARGUMENT for a card that does not exist or a card repeated (muestra included).
     * </pre>
     */
    public uy.truco.v1.EvaluateHandResponse evaluateHand(uy.truco.v1.EvaluateHandRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getEvaluateHandMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Which of two cards wins a round under a muestra. Errors: INVALID_ARGUMENT for a malformed card.
     * </pre>
     */
    public uy.truco.v1.CompareCardsResponse compareCards(uy.truco.v1.CompareCardsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCompareCardsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service RulesService.
   * <pre>
   * The rules calculator: stateless questions about hands and cards. No authentication.
   * </pre>
   */
  public static final class RulesServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<RulesServiceFutureStub> {
    private RulesServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Envido points, flor and card strengths of a three-card hand under a muestra (what `truco eval` prints).
     * Errors: INVALID_ARGUMENT for a card that does not exist or a card repeated (muestra included).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.EvaluateHandResponse> evaluateHand(
        uy.truco.v1.EvaluateHandRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getEvaluateHandMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Which of two cards wins a round under a muestra. Errors: INVALID_ARGUMENT for a malformed card.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<uy.truco.v1.CompareCardsResponse> compareCards(
        uy.truco.v1.CompareCardsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCompareCardsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_EVALUATE_HAND = 0;
  private static final int METHODID_COMPARE_CARDS = 1;

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
        case METHODID_EVALUATE_HAND:
          serviceImpl.evaluateHand((uy.truco.v1.EvaluateHandRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.EvaluateHandResponse>) responseObserver);
          break;
        case METHODID_COMPARE_CARDS:
          serviceImpl.compareCards((uy.truco.v1.CompareCardsRequest) request,
              (io.grpc.stub.StreamObserver<uy.truco.v1.CompareCardsResponse>) responseObserver);
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
          getEvaluateHandMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.EvaluateHandRequest,
              uy.truco.v1.EvaluateHandResponse>(
                service, METHODID_EVALUATE_HAND)))
        .addMethod(
          getCompareCardsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              uy.truco.v1.CompareCardsRequest,
              uy.truco.v1.CompareCardsResponse>(
                service, METHODID_COMPARE_CARDS)))
        .build();
  }

  private static abstract class RulesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    RulesServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return uy.truco.v1.RulesServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("RulesService");
    }
  }

  private static final class RulesServiceFileDescriptorSupplier
      extends RulesServiceBaseDescriptorSupplier {
    RulesServiceFileDescriptorSupplier() {}
  }

  private static final class RulesServiceMethodDescriptorSupplier
      extends RulesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    RulesServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (RulesServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new RulesServiceFileDescriptorSupplier())
              .addMethod(getEvaluateHandMethod())
              .addMethod(getCompareCardsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
