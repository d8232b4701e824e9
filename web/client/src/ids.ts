// Naming things: ids as keys ("index:generation", the text linkctl prints),
// body references by name or id, and vectors from arrays.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { BodyRefSchema, IdSchema, type BodyRef, type Id, type Vec3, type Vec3Schema } from "./gen/linkage/v1/types_pb.js";

/**
 * An id as a Map key: "3:1". Generations are never reused by the server, so
 * a key never names two different objects.
 */
export type Key = string;

export type IdLike = Key | { index: number; generation: number };

export function key(index: number, generation: number): Key {
  return `${index}:${generation}`;
}

/** The key of an id (an Id message or {index, generation}); "0:0" for none. */
export function idKey(id: { index: number; generation: number } | undefined): Key {
  return id ? key(id.index, id.generation) : key(0, 0);
}

/** An Id message from a key or {index, generation}. */
export function toId(id: IdLike): Id {
  if (typeof id !== "string") return create(IdSchema, { index: id.index, generation: id.generation });
  const m = /^(\d+):(\d+)$/.exec(id);
  if (!m) throw new TypeError(`id ${JSON.stringify(id)}: expected "index:generation"`);
  return create(IdSchema, { index: Number(m[1]), generation: Number(m[2]) });
}

/**
 * A body by name ("bob"), by id ({index, generation}, or an Id message), or
 * the world (null or undefined, where a definition allows it).
 */
export type BodyLike = string | { index: number; generation: number } | null | undefined;

/**
 * A BodyRef for a body given by name or id; an empty one (the world) for
 * null or undefined. A key such as "3:1" is a name here: bodies may be named
 * anything, so give ids as objects.
 */
export function bodyRef(body: BodyLike): BodyRef {
  if (body === null || body === undefined) return create(BodyRefSchema, {});
  if (typeof body === "string") return create(BodyRefSchema, { ref: { case: "name", value: body } });
  return create(BodyRefSchema, { ref: { case: "id", value: toId(body) } });
}

/**
 * The key of a body reference the server resolved (by id), or null for the
 * world; a reference by name (in a definition sent, not resolved) has none.
 */
export function refKey(ref: BodyRef | undefined): Key | null {
  return ref?.ref.case === "id" ? idKey(ref.ref.value) : null;
}

/** A Vec3 from [x, y] or [x, y, z]. */
export function vec(v: readonly number[]): MessageInitShape<typeof Vec3Schema> {
  return { x: v[0] ?? 0, y: v[1] ?? 0, z: v[2] ?? 0 };
}

export function vecArray(v: Vec3 | undefined): [number, number, number] {
  return v ? [v.x, v.y, v.z] : [0, 0, 0];
}
