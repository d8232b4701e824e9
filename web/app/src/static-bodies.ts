// Walls and ground for contacts: the fixed bodies the Wall tool and the
// Ground button add. Pure, so they are unit-tested.
import type { BodyDefInit } from "@linkage/client";
import { BodyKind, Motion } from "@linkage/client/proto/body_pb";
import { sceneBox, type P3 } from "./geometry";
import { xyz } from "./links";
import type { Pose, SceneModel } from "./scene-model";

// A ground this thick (m) in 2D, and at least this wide.
const GROUND_HALF_HEIGHT = 0.5;
const GROUND_MIN_HALF_WIDTH = 10;

// A fixed wall from `from` to `to` (a 2D world): a segment body centred
// between them, the segment in world axes (angle 0). Null for a wall too
// short to see.
export function wallDef(from: P3, to: P3, least: number): BodyDefInit | null {
  const half = [(to[0] - from[0]) / 2, (to[1] - from[1]) / 2];
  if (Math.hypot(half[0], half[1]) * 2 < least) return null;
  return {
    kind: BodyKind.RIGID,
    motion: Motion.FIXED,
    position: xyz([from[0] + half[0], from[1] + half[1], 0]),
    shape: { shape: { case: "segment", value: { a: xyz([-half[0], -half[1], 0]), b: xyz([half[0], half[1], 0]) } } },
  };
}

// A fixed ground just under everything in the scene (a swinging mechanism's
// reach included): in 2D a box whose top is the scene's lowest point, wider
// than the scene by its height on each side; in 3D a plane there, facing up.
export function groundDef(model: SceneModel, pose: Pose, dimension: number): BodyDefInit {
  const { min, max } = sceneBox(model, pose);
  if (dimension === 3) {
    return {
      kind: BodyKind.PARTICLE,
      motion: Motion.FIXED,
      position: xyz([(min[0] + max[0]) / 2, min[1], (min[2] + max[2]) / 2]),
      shape: { shape: { case: "plane", value: { normal: xyz([0, 1, 0]) } } },
    };
  }
  const halfWidth = Math.max(GROUND_MIN_HALF_WIDTH, (max[0] - min[0]) / 2 + (max[1] - min[1]));
  return {
    kind: BodyKind.RIGID,
    motion: Motion.FIXED,
    position: xyz([(min[0] + max[0]) / 2, min[1] - GROUND_HALF_HEIGHT, 0]),
    shape: { shape: { case: "box", value: { halfWidth, halfHeight: GROUND_HALF_HEIGHT } } },
  };
}
