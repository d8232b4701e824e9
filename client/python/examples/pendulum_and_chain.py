#!/usr/bin/python3
"""A pendulum and a chain in a fresh world on linkaged, watched as they swing.

Builds both (the chain in one atomic batch), streams the world with its
constraints and diagnostics, and prints every second each mechanism's energy
(from the streamed state and the masses in the mirrored topology) and its
largest constraint error, beside the world's own diagnostics. Deletes the
world at the end.

    PYTHONPATH=build/client/python /usr/bin/python3 client/python/examples/pendulum_and_chain.py \
        --server 127.0.0.1:50051 --seconds 5
"""

import argparse
import os
import sys

import linkage

GRAVITY = 9.81
LINKS = 10
LINK_LENGTH = 0.1


def build(client: linkage.Client, world: str) -> tuple[set, set]:
    """The two mechanisms, level with their pivots; their constraint ids."""
    # Force-based dynamics, RK4, 8 substeps per 60 Hz tick, stiff drift feedback.
    client.create_world(world, paused=True, integrator="rk4", solver="ldlt", substeps=8,
                        feedback_stiffness=2304, feedback_damping=96)

    # A pendulum: a 1 kg bob on a 1 m rod from a fixed pivot.
    client.create_body(world, name="pivot", motion="fixed", position=(0, 0))
    client.create_body(world, name="bob", position=(1, 0), mass=1.0, shape={"disk": {"radius": 0.1}})
    pendulum = {client.add_constraint(world, "distance", a="pivot", b="bob", name="rod")}

    # A chain of LINKS 0.1 kg links on 0.1 m rods, hooked to a fixed point: all at once.
    with client.batch(world) as batch:
        batch.create_body(name="hook", motion="fixed", position=(1.5, 0))
        for i in range(1, LINKS + 1):
            batch.create_body(name=f"link-{i}", position=(1.5 + i * LINK_LENGTH, 0), mass=0.1)
        rods = [batch.add_constraint("distance", a="hook" if i == 1 else f"link-{i - 1}", b=f"link-{i}")
                for i in range(1, LINKS + 1)]
    chain = {batch.results[k].created for k in rods}
    return pendulum, chain


def energy(world: linkage.World, names) -> float:
    """Kinetic + gravitational energy (J) of the named bodies, from the mirror."""
    total = 0.0
    for name in names:
        body = world.names[name]
        mass = world.bodies[body]["def"]["mass"]
        v = world.velocities[body]
        total += 0.5 * mass * sum(c * c for c in v) + mass * GRAVITY * world.positions[body][1]
    return total


def max_error(world: linkage.World, constraints) -> float:
    return max((abs(e) for c in constraints for e in world.constraint_rows[c].errors), default=0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="127.0.0.1:50051", help="linkaged's address (host:port)")
    parser.add_argument("--seconds", type=float, default=5.0, help="simulated seconds to watch")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between lines")
    parser.add_argument("--world", default=f"pendulum-and-chain-{os.getpid()}", help="the world to create")
    args = parser.parse_args()

    with linkage.Client(args.server) as client:
        try:
            client.wait_ready(timeout=5)
        except linkage.LinkageError as error:
            print(f"pendulum_and_chain: {error.message}", file=sys.stderr)
            return 1
        try:
            pendulum, chain = build(client, args.world)
            chain_names = [f"link-{i}" for i in range(1, LINKS + 1)]
            mirror = linkage.World()
            print(f"{'t (s)':>6}  {'pendulum E (J)':>14} {'max|C| (m)':>10}  {'chain E (J)':>12} {'max|C| (m)':>10}"
                  f"  {'world E (J)':>12} {'max|C|':>8}")
            next_line = 0.0
            with client.stream(args.world, rate_hz=30, constraints=True, diagnostics=True) as stream:
                client.resume(args.world)
                for snapshot in mirror.follow(stream):
                    if snapshot.time + 1e-9 < next_line:
                        continue
                    d = snapshot.diagnostics
                    print(f"{snapshot.time:6.2f}  {energy(mirror, ['bob']):14.6f} {max_error(mirror, pendulum):10.2e}"
                          f"  {energy(mirror, chain_names):12.6f} {max_error(mirror, chain):10.2e}"
                          f"  {snapshot.energy:12.6f} {d['max_error']:8.1e}", flush=True)
                    next_line += args.every
                    if snapshot.time + 1e-9 >= args.seconds:
                        break
        except linkage.LinkageError as error:
            print(f"pendulum_and_chain: {error.code}: {error.message}", file=sys.stderr)
            return 1
        finally:
            try:
                client.delete_world(args.world)
            except linkage.LinkageError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
