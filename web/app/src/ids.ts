// Ids as the viewer keys them: "index:generation", the same text the
// automation hook and the tests use. Generations are never reused by the
// server, so a key never names two different objects.
import { create } from "@bufbuild/protobuf";
import { IdSchema, type Id, type BodyRef } from "@linkage/client/proto/types_pb";

export type Key = string;

export function key(index: number, generation: number): Key {
  return `${index}:${generation}`;
}

export function idKey(id: Id | undefined): Key {
  return id ? key(id.index, id.generation) : key(0, 0);
}

export function keyId(k: Key): Id {
  const [index, generation] = k.split(":").map(Number);
  return create(IdSchema, { index, generation });
}

// A body reference in a definition the server resolved: by id, or empty for
// the world. Names are resolved away by then, so they are not expected here.
export function refKey(ref: BodyRef | undefined): Key | null {
  if (!ref || ref.ref.case !== "id") return null;
  return idKey(ref.ref.value);
}
