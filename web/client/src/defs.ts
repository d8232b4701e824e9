// Definitions as the client takes them (protobuf-es init shapes: plain
// objects, every field optional), a constraint's or force's type and fields
// made into one, and update masks from the fields given.
import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { FieldMaskSchema, type FieldMask } from "@bufbuild/protobuf/wkt";
import type { BodyDefSchema } from "./gen/linkage/v1/body_pb.js";
import { ConstraintDefSchema } from "./gen/linkage/v1/constraint_pb.js";
import type { AppliedForceSchema, ForceDefSchema, ImpulseSchema, SpringSchema } from "./gen/linkage/v1/force_pb.js";
import type { SceneSchema } from "./gen/linkage/v1/scene_pb.js";
import type { CommandSchema } from "./gen/linkage/v1/service_pb.js";
import type { WorldLimitsSchema, WorldSettingsSchema } from "./gen/linkage/v1/world_pb.js";

export type BodyDefInit = MessageInitShape<typeof BodyDefSchema>;
export type ConstraintDefInit = MessageInitShape<typeof ConstraintDefSchema>;
export type ForceDefInit = MessageInitShape<typeof ForceDefSchema>;
export type SpringInit = MessageInitShape<typeof SpringSchema>;
export type AppliedForceInit = MessageInitShape<typeof AppliedForceSchema>;
export type ImpulseInit = MessageInitShape<typeof ImpulseSchema>;
export type WorldSettingsInit = MessageInitShape<typeof WorldSettingsSchema>;
export type WorldLimitsInit = MessageInitShape<typeof WorldLimitsSchema>;
export type SceneInit = MessageInitShape<typeof SceneSchema>;
export type CommandInit = MessageInitShape<typeof CommandSchema>;

type ConstraintTypeInit = Extract<NonNullable<ConstraintDefInit["type"]>, { case: string }>;
/**
 * A constraint's type by its field name in ConstraintDef: "distance", "pin",
 * "pointOnLine", "rackAndPinion", ...
 */
export type ConstraintType = ConstraintTypeInit["case"];
/** The fields of a constraint of type K, e.g. { a, b, anchorA, length } for "distance". */
export type ConstraintFields<K extends ConstraintType> = Extract<ConstraintTypeInit, { case: K }>["value"];
/** What a constraint has besides its type: a name and a softness. */
export type ConstraintExtras = Pick<ConstraintDefInit, "name" | "softness">;

/** The constraint types the API knows, as ConstraintDef names them. */
export const CONSTRAINT_TYPES: readonly ConstraintType[] = ConstraintDefSchema.oneofs
  .find((o) => o.localName === "type")!
  .fields.map((f) => f.localName as ConstraintType);

export function constraintDef<K extends ConstraintType>(type: K, fields: ConstraintFields<K>, extras: ConstraintExtras = {}): ConstraintDefInit {
  return { ...extras, type: { case: type, value: fields } as ConstraintTypeInit };
}

/**
 * The proto name of a message's field given by its TypeScript name
 * ("angularVelocity" -> "angular_velocity"), as update masks spell them.
 */
export function fieldName(schema: DescMessage, localName: string): string {
  const field = schema.fields.find((f) => f.localName === localName);
  if (!field) throw new TypeError(`${schema.typeName} has no field ${JSON.stringify(localName)}`);
  return field.name;
}

/** An update mask naming the fields set in `fields` (under `prefix.` if given). */
export function maskOf(schema: DescMessage, fields: object, prefix?: string): FieldMask {
  const paths = Object.entries(fields)
    .filter(([k, v]) => k !== "$typeName" && v !== undefined)
    .map(([k]) => (prefix ? `${prefix}.` : "") + fieldName(schema, k));
  return create(FieldMaskSchema, { paths });
}
