// The 3D view (particle worlds): three.js with an orbit camera. Particles are
// instanced spheres; constraints, springs and tool feedback are line
// segments built from the same primitives the 2D view draws.
import { Motion } from "@linkage/client/proto/body_pb";
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { largestForce, magnitude, rampColor, rampPosition } from "./colors";
import { constraintPrims, springPrims, type Prim } from "./constraint-geometry";
import { bodyPosition, bodyRadius, sceneBox, type P3 } from "./geometry";
import type { Target } from "./hit";
import type { Pose, SceneModel } from "./scene-model";
import type { DrawState, View } from "./view";
import { PALETTE } from "./view2d";

const PICK_PX = 8;
// Where fit() looks from (towards the scene's centre), and how much of the
// canvas the scene's box may fill across or down.
const FIT_DIRECTION = new THREE.Vector3(0.55, 0.4, 1).normalize();
const FILL = 0.85;
const CIRCLE_SEGMENTS = 48;

type Rgb = [number, number, number];

function css(hex: string): Rgb {
  const c = new THREE.Color(hex);
  return [c.r, c.g, c.b];
}

const DYNAMIC = css(PALETTE.particle);
const FIXED = css(PALETTE.fixedStroke);
const SELECTED = css(PALETTE.selected);
const HOVER = css("#9fd3ff");
const SPRING = css(PALETTE.spring);

export class View3D implements View {
  readonly dimension = 3 as const;
  private readonly renderer: THREE.WebGLRenderer;
  private readonly scene = new THREE.Scene();
  private readonly camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
  private readonly controls: OrbitControls;
  private readonly sphere = new THREE.SphereGeometry(1, 16, 12);
  private readonly material = new THREE.MeshStandardMaterial({ roughness: 0.55, metalness: 0.05 });
  private bodies: THREE.InstancedMesh | null = null;
  private readonly lines: THREE.LineSegments;
  private readonly grid: THREE.GridHelper;
  // A default radius for bare particles: a fraction of the scene's size.
  private dotRadius = 0.03;

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.scene.background = new THREE.Color(PALETTE.background);
    this.scene.add(new THREE.HemisphereLight(0xdde7f2, 0x202a34, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.2);
    sun.position.set(3, 5, 4);
    this.scene.add(sun);
    this.grid = new THREE.GridHelper(10, 20, PALETTE.axis, PALETTE.grid);
    this.scene.add(this.grid);
    const geometry = new THREE.BufferGeometry();
    this.lines = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ vertexColors: true }));
    this.scene.add(this.lines);
    this.camera.position.set(4, 3, 6);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enableDamping = true;
  }

  dispose(): void {
    this.controls.dispose();
    this.sphere.dispose();
    this.material.dispose();
    this.lines.geometry.dispose();
    this.bodies?.dispose();
    this.renderer.dispose();
  }

  private resize(): void {
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    const size = this.renderer.getSize(new THREE.Vector2());
    if (size.x !== w || size.y !== h) {
      this.renderer.setSize(w, h, false);
      this.camera.aspect = w / Math.max(1, h);
      this.camera.updateProjectionMatrix();
    }
  }

  toScreen(p: P3): { x: number; y: number } {
    this.resize();
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(this.camera);
    return { x: ((v.x + 1) / 2) * this.canvas.clientWidth, y: ((1 - v.y) / 2) * this.canvas.clientHeight };
  }

  toWorld(sx: number, sy: number, depth?: P3): P3 {
    const ndc = new THREE.Vector2((sx / this.canvas.clientWidth) * 2 - 1, 1 - (sy / this.canvas.clientHeight) * 2);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const through = depth ? new THREE.Vector3(...depth) : this.controls.target.clone();
    const normal = this.camera.getWorldDirection(new THREE.Vector3());
    const plane = new THREE.Plane().setFromNormalAndCoplanarPoint(normal, through);
    const hit = ray.ray.intersectPlane(plane, new THREE.Vector3()) ?? through;
    return [hit.x, hit.y, hit.z];
  }

  pan(): void {
    // OrbitControls pans (right button) on its own.
  }

  // Frames the scene's box from a fixed direction (above, right, in front):
  // the camera backs off until every corner of the box projects inside the
  // middle FILL of the canvas, across and down, so a scene of any size or
  // place fills the view rather than a bounding sphere's share of it.
  fit(model: SceneModel, pose: Pose): void {
    this.resize();
    const b = sceneBox(model, pose);
    const centre = new THREE.Vector3((b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2);
    // Half a metre at least each way: a lone particle is not magnified without end.
    const half = [0, 1, 2].map((k) => Math.max(0.5, (b.max[k] - b.min[k]) / 2));
    const radius = Math.hypot(...half);
    const back = FIT_DIRECTION.clone();
    const right = new THREE.Vector3().crossVectors(THREE.Object3D.DEFAULT_UP, back).normalize();
    const up = new THREE.Vector3().crossVectors(back, right);
    const tanV = Math.tan(((this.camera.fov / 2) * Math.PI) / 180) * FILL;
    const tanH = tanV * this.camera.aspect;
    let distance = 0;
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1]) {
      const v = new THREE.Vector3(sx * half[0], sy * half[1], sz * half[2]);
      // A corner `toward` the camera is that much nearer to it than the centre.
      const toward = v.dot(back);
      distance = Math.max(distance, toward + Math.abs(v.dot(right)) / tanH, toward + Math.abs(v.dot(up)) / tanV);
    }
    this.controls.target.copy(centre);
    this.camera.position.copy(centre).addScaledVector(back, distance);
    this.camera.near = distance / 100;
    this.camera.far = distance * 100;
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.dotRadius = radius / 45;
    this.grid.scale.setScalar(Math.max(0.1, radius / 4));
    this.grid.position.set(centre.x, b.min[1] - radius * 0.05, centre.z);
  }

  pick(sx: number, sy: number, model: SceneModel, pose: Pose, time: number): Target | null {
    let best: Target | null = null;
    let bestD = PICK_PX;
    for (const id of pose.ids) {
      const p = bodyPosition(pose, id)!;
      const c = this.toScreen(p);
      const info = model.bodies.get(id);
      const rPx = this.pixelRadius(p, info ? bodyRadius(info) || this.dotRadius : this.dotRadius);
      const d = Math.max(0, Math.hypot(c.x - sx, c.y - sy) - rPx);
      if (d <= bestD) {
        best = { kind: "body", id };
        bestD = d;
      }
    }
    if (best) return best;
    bestD = PICK_PX;
    const consider = (prims: Prim[], target: Target) => {
      for (const [a, b] of this.segments(prims)) {
        const d = screenSegmentDistance(this.toScreen(a), this.toScreen(b), sx, sy);
        if (d <= bestD) {
          best = target;
          bestD = d;
        }
      }
    };
    for (const c of model.constraints.values()) consider(constraintPrims(c, pose, time, this.reach()), { kind: "constraint", id: c.id });
    for (const s of model.springs.values()) consider(springPrims(s, pose), { kind: "spring", id: s.id });
    return best;
  }

  private pixelRadius(p: P3, r: number): number {
    const a = this.toScreen(p);
    const right = new THREE.Vector3().setFromMatrixColumn(this.camera.matrixWorld, 0).multiplyScalar(r);
    const b = this.toScreen([p[0] + right.x, p[1] + right.y, p[2] + right.z]);
    return Math.hypot(b.x - a.x, b.y - a.y);
  }

  private reach(): number {
    return this.camera.position.distanceTo(this.controls.target) * 2;
  }

  // Primitives as 3D line segments: circles as polylines (three great circles
  // for a sphere's guide), markers as small crosses.
  private segments(prims: Prim[]): [P3, P3][] {
    const out: [P3, P3][] = [];
    const m = this.dotRadius * 2;
    for (const q of prims) {
      if (q.kind === "segment") out.push([q.a, q.b]);
      else if (q.kind === "circle") {
        for (const [i, j] of [[0, 1], [0, 2], [1, 2]]) {
          for (let k = 0; k < CIRCLE_SEGMENTS; k++) {
            const at = (n: number): P3 => {
              const p: P3 = [q.c[0], q.c[1], q.c[2]];
              const th = (2 * Math.PI * n) / CIRCLE_SEGMENTS;
              p[i] += q.r * Math.cos(th);
              p[j] += q.r * Math.sin(th);
              return p;
            };
            out.push([at(k), at(k + 1)]);
          }
        }
      } else {
        for (let k = 0; k < 3; k++) {
          const a: P3 = [q.p[0], q.p[1], q.p[2]];
          const b: P3 = [q.p[0], q.p[1], q.p[2]];
          a[k] -= m;
          b[k] += m;
          out.push([a, b]);
        }
      }
    }
    return out;
  }

  draw(s: DrawState): void {
    this.resize();
    this.drawBodies(s);
    this.drawLines(s);
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
  }

  private drawBodies(s: DrawState): void {
    const n = s.pose.ids.length;
    if (!this.bodies || this.bodies.count !== n || this.bodies.instanceMatrix.count < n) {
      if (this.bodies) {
        this.scene.remove(this.bodies);
        this.bodies.dispose();
      }
      this.bodies = new THREE.InstancedMesh(this.sphere, this.material, Math.max(1, n));
      this.bodies.count = n;
      this.scene.add(this.bodies);
    }
    const m = new THREE.Matrix4();
    const color = new THREE.Color();
    s.pose.ids.forEach((id, i) => {
      const p = bodyPosition(s.pose, id)!;
      const info = s.model.bodies.get(id);
      const r = info && info.shape.kind === "disk" ? info.shape.radius : this.dotRadius;
      m.makeScale(r, r, r).setPosition(p[0], p[1], p[2]);
      this.bodies!.setMatrixAt(i, m);
      const rgb =
        s.selected?.kind === "body" && s.selected.id === id ? SELECTED
        : (s.hover?.kind === "body" && s.hover.id === id) || s.highlight.includes(id) ? HOVER
        : info?.cursor ? SPRING : info?.motion === Motion.FIXED ? FIXED : DYNAMIC;
      this.bodies!.setColorAt(i, color.setRGB(...rgb));
    });
    this.bodies.instanceMatrix.needsUpdate = true;
    if (this.bodies.instanceColor) this.bodies.instanceColor.needsUpdate = true;
    this.bodies.computeBoundingSphere();
  }

  private drawLines(s: DrawState): void {
    const segs: [P3, P3, Rgb][] = [];
    const reach = this.reach();
    const maxForce = largestForce(s.frame.constraints.values());
    const mark = (kind: string, id: string): Rgb | null =>
      s.selected?.kind === kind && s.selected.id === id ? SELECTED : s.hover?.kind === kind && s.hover.id === id ? HOVER : null;
    for (const c of s.model.constraints.values()) {
      const t = rampPosition(magnitude(s.frame.constraints.get(c.id), s.colorMode), s.colorMode, maxForce);
      const rgb = mark("constraint", c.id) ?? (rampColor(t).map((v) => v / 255) as Rgb);
      for (const [a, b] of this.segments(constraintPrims(c, s.pose, s.frame.time, reach))) segs.push([a, b, rgb]);
    }
    for (const sp of s.model.springs.values()) {
      const rgb = mark("spring", sp.id) ?? SPRING;
      for (const [a, b] of this.segments(springPrims(sp, s.pose))) segs.push([a, b, rgb]);
    }
    // A plane body: a square of lines on its plane, two thirds of the scene across.
    for (const id of s.pose.ids) {
      const shape = s.model.bodies.get(id)?.shape;
      if (shape?.kind === "plane") segs.push(...planeLines(bodyPosition(s.pose, id)!, shape.normal, this.dotRadius * 15));
    }
    // Contact normals, as long as a tenth of the scene's size.
    for (const g of s.contacts) {
      const len = this.dotRadius * 4;
      const tip: P3 = [g.point[0] + g.normal[0] * len, g.point[1] + g.normal[1] * len, g.point[2] + g.normal[2] * len];
      segs.push([g.point, tip, rampColor(g.t).map((v) => v / 255) as Rgb]);
    }
    for (const o of s.overlays) segs.push([o.from, o.to, SELECTED]);

    const positions = new Float32Array(segs.length * 6);
    const colors = new Float32Array(segs.length * 6);
    segs.forEach(([a, b, c], i) => {
      positions.set(a, i * 6);
      positions.set(b, i * 6 + 3);
      colors.set(c, i * 6);
      colors.set(c, i * 6 + 3);
    });
    const g = this.lines.geometry;
    g.setAttribute("position", new THREE.BufferAttribute(positions, 3));
    g.setAttribute("color", new THREE.BufferAttribute(colors, 3));
    g.computeBoundingSphere();
  }
}

export function planeLines(c: P3, normal: [number, number, number], half: number): [P3, P3, Rgb][] {
  const n = new THREE.Vector3(...normal).normalize();
  // Any direction across the normal, then the third one.
  const u = new THREE.Vector3(1, 0, 0).cross(n);
  if (u.lengthSq() < 1e-6) u.set(0, 1, 0).cross(n);
  u.normalize();
  const v = new THREE.Vector3().crossVectors(n, u);
  const at = (a: number, b: number): P3 => [c[0] + u.x * a + v.x * b, c[1] + u.y * a + v.y * b, c[2] + u.z * a + v.z * b];
  const out: [P3, P3, Rgb][] = [];
  for (let i = -3; i <= 3; i++) {
    const t = (i / 3) * half;
    out.push([at(t, -half), at(t, half), FIXED], [at(-half, t), at(half, t), FIXED]);
  }
  return out;
}

function screenSegmentDistance(a: { x: number; y: number }, b: { x: number; y: number }, x: number, y: number): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.min(1, Math.max(0, ((x - a.x) * dx + (y - a.y) * dy) / len2)) : 0;
  return Math.hypot(x - a.x - dx * t, y - a.y - dy * t);
}
