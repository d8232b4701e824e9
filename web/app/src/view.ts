// What the rest of the app needs from a view, 2D canvas or 3D: draw a pose,
// map between world and screen, and pick what is under the cursor.
import type { ColorMode } from "./colors";
import type { ContactGlyph } from "./contact-glyphs";
import type { P3 } from "./geometry";
import type { Target } from "./hit";
import type { Key } from "./ids";
import type { Frame, Pose, SceneModel } from "./scene-model";

// Tool feedback drawn over the scene, in world coordinates.
export type Overlay = { kind: "line" | "arrow"; from: P3; to: P3 };

export interface DrawState {
  model: SceneModel;
  pose: Pose;
  // The newest snapshot: constraint λ and errors, time.
  frame: Frame;
  colorMode: ColorMode;
  selected: Target | null;
  hover: Target | null;
  highlight: Key[];
  overlays: Overlay[];
  // Contact points and normals to draw (none while the toggle is off).
  contacts: ContactGlyph[];
}

export interface View {
  readonly dimension: 2 | 3;
  // CSS pixels of a world point, relative to the canvas.
  toScreen(p: P3): { x: number; y: number };
  // The world point under a canvas point; in 3D on the plane through `depth`
  // that faces the camera.
  toWorld(sx: number, sy: number, depth?: P3): P3;
  // The body under a canvas point first, else the constraint or spring.
  pick(sx: number, sy: number, model: SceneModel, pose: Pose, time: number): Target | null;
  // Moves the camera by a screen displacement (2D; the 3D view orbits itself).
  pan(dx: number, dy: number): void;
  fit(model: SceneModel, pose: Pose): void;
  draw(state: DrawState): void;
  dispose(): void;
}
