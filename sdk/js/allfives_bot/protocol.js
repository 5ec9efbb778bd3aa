"use strict";
// The protocol, loaded from the .proto files themselves (proto/allfives/v1/bot.proto and
// grpc/health/v1/health.proto) with @grpc/proto-loader: every message, service and enum comes
// from there, nothing is copied. Field names are the .proto's (snake_case), enum values their
// names ("END_LEFT"), unset fields their defaults.
//
// The .proto files are looked for in ALLFIVES_PROTO_DIR, then next to this file (proto/, where
// the build puts them), then in the repository (../../../proto from sdk/js/allfives_bot).

const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const FILES = ["allfives/v1/bot.proto", "grpc/health/v1/health.proto"];

function protoDir() {
  const candidates = [process.env.ALLFIVES_PROTO_DIR, path.join(__dirname, "proto"),
                      path.join(__dirname, "..", "..", "..", "proto")].filter(Boolean);
  for (const dir of candidates)
    if (fs.existsSync(path.join(dir, FILES[0]))) return dir;
  throw new Error(`allfives_bot: ${FILES[0]} not found in ${candidates.join(", ")} ` +
                  "(set ALLFIVES_PROTO_DIR to the repository's proto/ folder)");
}

const definition = protoLoader.loadSync(FILES, {
  includeDirs: [protoDir()], keepCase: true, longs: String, enums: String, defaults: true,
  oneofs: true,
});
const loaded = grpc.loadPackageDefinition(definition);

// A protocol enum as {SHORT_NAME: "FULL_NAME"} without the UNSPECIFIED value, and its numbers.
function enumOf(fullName, prefix) {
  const values = definition[fullName].type.value;
  const names = {};
  const numbers = {};
  for (const v of values) {
    numbers[v.name] = v.number;
    if (v.number !== 0) names[v.name.slice(prefix.length)] = v.name;
  }
  return { names: Object.freeze(names), numbers: Object.freeze(numbers) };
}

const End = enumOf("allfives.v1.End", "END_").names;
const Format = enumOf("allfives.v1.Format", "FORMAT_").names;
const OpenRule = enumOf("allfives.v1.OpenRule", "OPEN_RULE_").names;
const HandEndKind = enumOf("allfives.v1.HandEndKind", "HAND_END_KIND_").names;
const MatchEndReason = enumOf("allfives.v1.MatchEndReason", "MATCH_END_REASON_").names;
const FaultKind = enumOf("allfives.v1.FaultKind", "FAULT_KIND_").names;
// The newest protocol version this kit speaks and the oldest (common.proto): from 3 on, every
// answer carries the nonce of the request it answers (bot.proto, "Unasked answers"). A nonce is
// a 64-bit number, kept as a decimal string (longs: String) so that it is echoed exactly.
const versions = enumOf("allfives.v1.ProtocolVersion", "PROTOCOL_VERSION_").numbers;
const PROTOCOL_VERSION = versions.PROTOCOL_VERSION_CURRENT;
const OLDEST_PROTOCOL_VERSION = versions.PROTOCOL_VERSION_OLDEST;

module.exports = {
  grpc, BotService: loaded.allfives.v1.Bot.service, HealthService: loaded.grpc.health.v1.Health.service,
  End, Format, OpenRule, HandEndKind, MatchEndReason, FaultKind, PROTOCOL_VERSION, OLDEST_PROTOCOL_VERSION,
};
