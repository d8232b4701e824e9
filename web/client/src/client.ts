// Client: every RPC of linkage.v1, as the raw Connect clients (`world`,
// `body`, `constraint`, `force`) and as methods in the Python client's shape.
import { create, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import { createClient, type Client as ServiceClient } from "@connectrpc/connect";
import { BodyDefSchema, type Body } from "./gen/linkage/v1/body_pb.js";
import { ConstraintDefSchema, type Constraint } from "./gen/linkage/v1/constraint_pb.js";
import { SpringSchema, type Force } from "./gen/linkage/v1/force_pb.js";
import { SceneSchema, type Scene } from "./gen/linkage/v1/scene_pb.js";
import {
  BodyService,
  ConstraintService,
  ForceService,
  WorldService,
  type CommandResult,
} from "./gen/linkage/v1/service_pb.js";
import type { Id } from "./gen/linkage/v1/types_pb.js";
import { WorldSettingsSchema, type World } from "./gen/linkage/v1/world_pb.js";
import { Batch } from "./batch.js";
import {
  constraintDef,
  maskOf,
  type AppliedForceInit,
  type BodyDefInit,
  type CommandInit,
  type ConstraintDefInit,
  type ConstraintExtras,
  type ConstraintFields,
  type ConstraintType,
  type ImpulseInit,
  type SceneInit,
  type SpringInit,
  type WorldLimitsInit,
  type WorldSettingsInit,
} from "./defs.js";
import { bodyRef, toId, type BodyLike, type IdLike } from "./ids.js";
import { StateStream } from "./stream.js";
import { createTransport, type ClientOptions } from "./transport.js";

export interface StreamOptions {
  /** Snapshots per second; 0 (the default): every tick. */
  rateHz?: number;
  /** Include each constraint's λ and error rows. */
  constraints?: boolean;
  /** Include the tick's diagnostics (energies, max |C|, step time, ...). */
  diagnostics?: boolean;
  /**
   * Include the tick's contact points and the pairs of bodies that began or
   * ended touching since the stream's previous frame (Mirror.contacts(),
   * Mirror.touching).
   */
  contacts?: boolean;
  /** Aborting it closes the stream. */
  signal?: AbortSignal;
}

/**
 * A connection to linkaged, through the web gateway or a transport of your own.
 *
 *     const client = new Client({ baseUrl: "http://127.0.0.1:8080" });
 *     await client.createWorld("lab", { paused: true });
 *     const bob = await client.createBody("lab", { name: "bob", position: vec([1, 0]), mass: 1 });
 *     await client.addConstraint("lab", "distance", { b: bodyRef("bob") });
 *     await client.step("lab", 60);
 *
 * Every call rejects with a LinkageError (code, codeName, rawMessage) when
 * the server refuses it or cannot be reached. Worlds are named by name,
 * bodies by name or id, constraints and forces by id. Definitions are
 * protobuf-es init objects (camelCase fields, enums as numbers from the
 * ./proto/* modules); results are the API's messages.
 */
export class Client {
  /** The services' own Connect clients, for any call the methods below do not cover. */
  readonly world: ServiceClient<typeof WorldService>;
  readonly body: ServiceClient<typeof BodyService>;
  readonly constraint: ServiceClient<typeof ConstraintService>;
  readonly force: ServiceClient<typeof ForceService>;

  constructor(options: ClientOptions = {}) {
    const transport = createTransport(options);
    this.world = createClient(WorldService, transport);
    this.body = createClient(BodyService, transport);
    this.constraint = createClient(ConstraintService, transport);
    this.force = createClient(ForceService, transport);
  }

  // --- worlds ---

  async createWorld(name: string, options: { settings?: WorldSettingsInit; paused?: boolean; limits?: WorldLimitsInit } = {}): Promise<World> {
    return (await this.world.createWorld({ name, ...options })).world!;
  }

  async listWorlds(): Promise<World[]> {
    return (await this.world.listWorlds({})).worlds;
  }

  async getWorld(world: string): Promise<World> {
    return (await this.world.getWorld({ world })).world!;
  }

  /** Changes the settings given and no others (an update mask), live. */
  async updateWorld(world: string, settings: WorldSettingsInit): Promise<World> {
    const updateMask = maskOf(WorldSettingsSchema, settings);
    return (await this.world.updateWorld({ world, settings, updateMask })).world!;
  }

  async deleteWorld(world: string): Promise<void> {
    await this.world.deleteWorld({ world });
  }

  async pause(world: string): Promise<World> {
    return (await this.world.pause({ world })).world!;
  }

  async resume(world: string): Promise<World> {
    return (await this.world.resume({ world })).world!;
  }

  /** Steps a paused world by `ticks` ticks; resolves when they are done. */
  async step(world: string, ticks = 1): Promise<World> {
    return (await this.world.step({ world, ticks })).world!;
  }

  /** Back to the last loaded scene (or empty). */
  async reset(world: string): Promise<World> {
    return (await this.world.reset({ world })).world!;
  }

  /**
   * Replaces the world by a scene: a Scene message or init object, or a
   * scene file's JSON (parsed, as in scenes/*.json).
   */
  async loadScene(world: string, scene: Scene | SceneInit | { json: JsonValue }): Promise<World> {
    const s = "json" in scene ? fromJson(SceneSchema, scene.json) : create(SceneSchema, scene as SceneInit);
    return (await this.world.loadScene({ world, scene: s })).world!;
  }

  async saveScene(world: string): Promise<Scene> {
    return (await this.world.saveScene({ world })).scene!;
  }

  /** The world as a scene file's JSON (proto field names, as scenes/*.json). */
  async saveSceneJson(world: string): Promise<JsonValue> {
    return toJson(SceneSchema, await this.saveScene(world), { useProtoFieldName: true });
  }

  /** Commands collected and applied atomically, in one tick. */
  batch(world: string): Batch {
    return new Batch(this, world);
  }

  async applyBatch(world: string, commands: CommandInit[]): Promise<{ results: CommandResult[]; tick: bigint }> {
    const r = await this.world.applyBatch({ world, commands });
    return { results: r.results, tick: r.tick };
  }

  /** The world's snapshots as an async iterator; see StateStream. */
  stream(world: string, options: StreamOptions = {}): StateStream {
    const { signal: given, ...request } = options;
    const abort = new AbortController();
    const forward = () => abort.abort();
    if (given?.aborted) abort.abort();
    given?.addEventListener("abort", forward, { once: true });
    // The caller's signal may outlive many streams: let go of it when this one ends.
    abort.signal.addEventListener("abort", () => given?.removeEventListener("abort", forward), { once: true });
    return new StateStream((signal) => this.world.streamState({ world, ...request }, { signal }), abort);
  }

  // --- bodies ---

  async createBody(world: string, body: BodyDefInit): Promise<Id> {
    return (await this.body.createBody({ world, body })).id!;
  }

  /** Several bodies, atomically. */
  async createBodies(world: string, bodies: BodyDefInit[]): Promise<Id[]> {
    return (await this.body.createBodies({ world, bodies })).ids;
  }

  async getBody(world: string, body: BodyLike): Promise<Body> {
    return (await this.body.getBody({ world, body: bodyRef(body) })).body!;
  }

  async listBodies(world: string): Promise<Body[]> {
    return (await this.body.listBodies({ world })).bodies;
  }

  /**
   * Changes the fields given and no others (an update mask; nothing is read
   * first): a running body's mass changes without its state going back.
   * With { replace: true } the definition replaces the whole of it.
   */
  async updateBody(world: string, body: BodyLike, fields: BodyDefInit, options: { replace?: boolean } = {}): Promise<Body> {
    const updateMask = options.replace ? undefined : maskOf(BodyDefSchema, fields);
    return (await this.body.updateBody({ world, body: bodyRef(body), def: fields, updateMask })).body!;
  }

  /** Removes a body with its constraints and forces, and says which went. */
  async removeBody(world: string, body: BodyLike): Promise<{ removedConstraints: Id[]; removedForces: Id[] }> {
    const r = await this.body.removeBody({ world, body: bodyRef(body) });
    return { removedConstraints: r.removedConstraints, removedForces: r.removedForces };
  }

  // --- constraints ---

  /**
   * addConstraint(w, "distance", { a: bodyRef("pivot"), b: bodyRef("bob") }, { name: "rod" }),
   * or addConstraint(w, definition).
   */
  addConstraint<K extends ConstraintType>(world: string, type: K, fields: ConstraintFields<K>, extras?: ConstraintExtras): Promise<Id>;
  addConstraint(world: string, definition: ConstraintDefInit): Promise<Id>;
  async addConstraint(world: string, what: ConstraintType | ConstraintDefInit, fields?: object, extras?: ConstraintExtras): Promise<Id> {
    const constraint = typeof what === "string" ? constraintDef(what, fields as never, extras) : what;
    return (await this.constraint.addConstraint({ world, constraint })).id!;
  }

  async addConstraints(world: string, constraints: ConstraintDefInit[]): Promise<Id[]> {
    return (await this.constraint.addConstraints({ world, constraints })).ids;
  }

  /** With its λ, error and forces after the last step. */
  async getConstraint(world: string, id: IdLike): Promise<Constraint> {
    return (await this.constraint.getConstraint({ world, id: toId(id) })).constraint!;
  }

  async listConstraints(world: string): Promise<Constraint[]> {
    return (await this.constraint.listConstraints({ world })).constraints;
  }

  /**
   * updateConstraint(w, rod, "distance", { length: 1.5 }, { softness: ... }):
   * the fields given and no others change (an update mask); the type must be
   * the constraint's. updateConstraint(w, rod, definition) replaces the whole
   * definition (its type and bodies must stay).
   */
  updateConstraint<K extends ConstraintType>(world: string, id: IdLike, type: K, fields: ConstraintFields<K>, extras?: ConstraintExtras): Promise<Constraint>;
  updateConstraint(world: string, id: IdLike, definition: ConstraintDefInit): Promise<Constraint>;
  async updateConstraint(world: string, id: IdLike, what: ConstraintType | ConstraintDefInit, fields?: object, extras: ConstraintExtras = {}): Promise<Constraint> {
    if (typeof what !== "string") {
      return (await this.constraint.updateConstraint({ world, id: toId(id), constraint: what })).constraint!;
    }
    const typeField = ConstraintDefSchema.fields.find((f) => f.localName === what);
    if (!typeField?.message) throw new TypeError(`constraint type ${JSON.stringify(what)}: not a ConstraintDef type`);
    const paths = [
      ...maskOf(typeField.message, fields ?? {}, typeField.name).paths,
      ...maskOf(ConstraintDefSchema, extras).paths,
    ];
    const constraint = constraintDef(what, fields as never, extras);
    return (await this.constraint.updateConstraint({ world, id: toId(id), constraint, updateMask: { paths } })).constraint!;
  }

  async removeConstraint(world: string, id: IdLike): Promise<void> {
    await this.constraint.removeConstraint({ world, id: toId(id) });
  }

  // --- forces ---

  /** A spring-damper from body a to body b (or the world point anchorB). */
  async addSpring(world: string, spring: SpringInit): Promise<Id> {
    return (await this.force.addForce({ world, force: { type: { case: "spring", value: spring } } })).id!;
  }

  /** A force on a body (N, world frame), for `ticks` ticks or until removed. */
  async addForce(world: string, applied: AppliedForceInit): Promise<Id> {
    return (await this.force.addForce({ world, force: { type: { case: "applied", value: applied } } })).id!;
  }

  /** Changes the spring's fields given and no others (an update mask). */
  async updateSpring(world: string, id: IdLike, fields: SpringInit): Promise<Force> {
    const updateMask = maskOf(SpringSchema, fields, "spring");
    return (await this.force.updateForce({ world, id: toId(id), force: { type: { case: "spring", value: fields } }, updateMask })).force!;
  }

  async removeForce(world: string, id: IdLike): Promise<void> {
    await this.force.removeForce({ world, id: toId(id) });
  }

  async listForces(world: string): Promise<Force[]> {
    return (await this.force.listForces({ world })).forces;
  }

  /** Changes a body's momentum before the next tick. */
  async applyImpulse(world: string, impulse: ImpulseInit): Promise<void> {
    await this.force.applyImpulse({ world, impulse });
  }
}
