// @linkage/client: a TypeScript client for linkaged over Connect, for Node
// (18.14 and later) and browsers. The API's messages and enums are in
// "@linkage/client/proto/<file>_pb" (body_pb, constraint_pb, world_pb, ...).
export { Client, type StreamOptions } from "./client.js";
export { Batch } from "./batch.js";
export { StateStream } from "./stream.js";
export {
  Mirror,
  bodyNames,
  constraintRows,
  contactPoints,
  hasChanges,
  pairKey,
  type ConstraintRows,
  type ContactPoint,
  type MirrorEntries,
  type PairKey,
} from "./mirror.js";
export { Code, ConnectError, LinkageError, codeName } from "./errors.js";
export { type ClientOptions } from "./transport.js";
export { bodyRef, idKey, key, refKey, toId, vec, vecArray, type BodyLike, type IdLike, type Key } from "./ids.js";
export {
  CONSTRAINT_TYPES,
  constraintDef,
  type AppliedForceInit,
  type BodyDefInit,
  type CommandInit,
  type ConstraintDefInit,
  type ConstraintExtras,
  type ConstraintFields,
  type ConstraintType,
  type ForceDefInit,
  type ImpulseInit,
  type SceneInit,
  type SpringInit,
  type WorldLimitsInit,
  type WorldSettingsInit,
} from "./defs.js";
