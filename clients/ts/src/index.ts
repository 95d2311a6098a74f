/**
 * The TypeScript SDK of the Truco Uruguayo service: generated messages and service descriptors (./gen, made by
 * scripts/gen-sdks with protoc-gen-es) and a thin client that runs over any Connect transport. Node users add
 * `createNodeTransport` from "truco-client/node"; a browser passes its own transport.
 */
export * from "./cards.js";
export * from "./client.js";
export * from "./commands.js";
export * from "./errors.js";
export * from "./proofs.js";
export * from "./gen/truco/v1/cards_pb.js";
export * from "./gen/truco/v1/commands_pb.js";
export * from "./gen/truco/v1/errors_pb.js";
export * from "./gen/truco/v1/events_pb.js";
export * from "./gen/truco/v1/game_service_pb.js";
export * from "./gen/truco/v1/players_pb.js";
export * from "./gen/truco/v1/rules_pb.js";
export * from "./gen/truco/v1/rules_service_pb.js";
export * from "./gen/truco/v1/views_pb.js";
