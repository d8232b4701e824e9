// Commands collected and applied atomically in one tick (ApplyBatch).
import { BodyDefSchema } from "./gen/linkage/v1/body_pb.js";
import type { CommandResult } from "./gen/linkage/v1/service_pb.js";
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
  type SpringInit,
} from "./defs.js";
import { bodyRef, toId, type BodyLike, type IdLike } from "./ids.js";
import type { Client } from "./client.js";

/**
 * A batch: every command applies, in order, before the same tick, or none
 * does (the first refused rejects apply() with its LinkageError).
 *
 *     const batch = client.batch("lab");
 *     batch.createBody({ name: "bob", position: vec([1, 0]), mass: 1 });
 *     batch.addConstraint("distance", { b: bodyRef("bob") });
 *     const [bob] = await batch.apply();      // bob.created: the body's id
 *
 * Each method returns its command's index in the results. Bodies created
 * earlier in a batch can be named by later commands.
 */
export class Batch {
  readonly commands: CommandInit[] = [];
  /** The tick before which the batch was applied, once it was. */
  tick: bigint | null = null;

  constructor(private readonly client: Client, readonly world: string) {}

  add(command: CommandInit): number {
    return this.commands.push(command) - 1;
  }

  createBody(body: BodyDefInit): number {
    return this.add({ command: { case: "createBody", value: body } });
  }

  /** The fields given and no others (an update mask), as Client.updateBody. */
  updateBody(body: BodyLike, fields: BodyDefInit): number {
    const value = { body: bodyRef(body), def: fields, updateMask: maskOf(BodyDefSchema, fields) };
    return this.add({ command: { case: "updateBody", value } });
  }

  removeBody(body: BodyLike): number {
    return this.add({ command: { case: "removeBody", value: bodyRef(body) } });
  }

  addConstraint<K extends ConstraintType>(type: K, fields: ConstraintFields<K>, extras?: ConstraintExtras): number;
  addConstraint(definition: ConstraintDefInit): number;
  addConstraint(what: ConstraintType | ConstraintDefInit, fields?: object, extras?: ConstraintExtras): number {
    const value = typeof what === "string" ? constraintDef(what, fields as never, extras) : what;
    return this.add({ command: { case: "addConstraint", value } });
  }

  /** A whole new definition (its type and bodies must stay): a batch reads nothing first. */
  updateConstraint(id: IdLike, definition: ConstraintDefInit): number {
    return this.add({ command: { case: "updateConstraint", value: { id: toId(id), constraint: definition } } });
  }

  removeConstraint(id: IdLike): number {
    return this.add({ command: { case: "removeConstraint", value: toId(id) } });
  }

  addSpring(spring: SpringInit): number {
    return this.add({ command: { case: "addForce", value: { type: { case: "spring", value: spring } } } });
  }

  addForce(applied: AppliedForceInit): number {
    return this.add({ command: { case: "addForce", value: { type: { case: "applied", value: applied } } } });
  }

  removeForce(id: IdLike): number {
    return this.add({ command: { case: "removeForce", value: toId(id) } });
  }

  applyImpulse(impulse: ImpulseInit): number {
    return this.add({ command: { case: "applyImpulse", value: impulse } });
  }

  /** Sends the commands; one result per command (the id it created, what it removed). */
  async apply(): Promise<CommandResult[]> {
    const { results, tick } = await this.client.applyBatch(this.world, this.commands);
    this.tick = tick;
    return results;
  }
}
