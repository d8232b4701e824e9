#!/usr/bin/python3
"""Turns linkage_bench's Google Benchmark JSON into bench/results.csv and BENCHMARKS.md.

    /usr/bin/python3 bench/report.py bench/results.json [--csv bench/results.csv] [--md BENCHMARKS.md]

Standard library only. The machine is described from `lscpu`; hand-written
analysis in bench/notes.md (if present) is appended to BENCHMARKS.md.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SCENE_ORDER = ["pendulum", "chain_100", "chain_1000", "cloth_32", "cloth_100", "cloth_100_slack", "joint_grid"]
# The targets: worst relative error ≤ 1e-6 at a median step of at most this
# many times Box2D's at its default iterations.
TARGETS = {"chain_1000": 1.0, "joint_grid": 0.5, "cloth_100_slack": 2.0}
PATHS = ["none", "tree", "graph", "mixed", "iterative", "sequential"]
STAGES = ["forces", "constraints", "solve", "integrate", "project_positions", "project_velocities", "expire", "measure"]
BASELINE = ("box2d", "v8_p3")  # Box2D 2.4 at its default iterations
COUNTERS = ["steps", "dof", "equations", "median_step_ms", "mean_step_ms", "worst_rel_error",
            "final_rel_error", "energy_drift", "max_energy_drift", "diverged_at_step", "rank_deficiency",
            "shortened", "solver_path", "factorizations_per_step", "solves_per_step", "pcg_per_step",
            "projection_iterations_per_step", "capped_steps"] + [f"{s}_ms" for s in STAGES]


def lscpu():
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return info
    for line in out.splitlines():
        key, _, value = line.partition(":")
        info[key.strip()] = value.strip()
    return info


def machine_text(context):
    cpu = lscpu()
    model = cpu.get("Model name", "unknown CPU")
    cpus = cpu.get("CPU(s)", str(context.get("num_cpus", "?")))
    cores = cpu.get("Core(s) per socket", "?")
    sockets = cpu.get("Socket(s)", "?")
    threads = cpu.get("Thread(s) per core", "?")
    mhz = context.get("mhz_per_cpu")
    text = f"{model}, {cpus} logical CPUs ({sockets} socket(s) x {cores} core(s) x {threads} thread(s))"
    if mhz:
        text += f", {mhz} MHz"
    return text


def parse_name(name):
    """'scene/engine/config/iterations:1/manual_time' -> (scene, engine, config)."""
    parts = name.split("/")
    return parts[0], parts[1], "/".join(p for p in parts[2:] if ":" not in p and p != "manual_time")


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = []
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        scene, engine, config = parse_name(b.get("run_name", b["name"]))
        row = {"scene": scene, "engine": engine, "config": config,
               "error": b.get("error_message", "") if b.get("error_occurred") else "",
               "run_ms": b.get("real_time", float("nan"))}
        for c in COUNTERS:
            row[c] = b.get(c, None)
        rows.append(row)
    return data.get("context", {}), rows


def scenes_in(rows):
    seen = []
    for r in rows:
        if r["scene"] not in seen:
            seen.append(r["scene"])
    return sorted(seen, key=lambda s: (SCENE_ORDER.index(s) if s in SCENE_ORDER else len(SCENE_ORDER), s))


def baseline_of(rows, scene):
    for r in rows:
        if r["scene"] == scene and (r["engine"], r["config"]) == BASELINE and not r["error"]:
            return r
    return None


def ratio(a, b):
    try:
        return a / b if b and math.isfinite(a) and math.isfinite(b) else float("nan")
    except TypeError:
        return float("nan")


def fmt(x, kind="g"):
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if kind == "ms":
        return f"{x:.3g}" if x < 100 else f"{x:.0f}"
    if kind == "ratio":
        return f"{x:.2g}" if x < 10 else f"{x:.0f}"
    if kind == "int":
        return str(int(round(x)))
    if x == 0:
        return "0"
    return f"{x:.2e}".replace("e-0", "e-").replace("e+0", "e+")


def write_csv(path, rows):
    fields = ["scene", "engine", "config", "steps", "dof", "equations", "median_step_ms", "mean_step_ms",
              "time_ratio_vs_box2d_default", "worst_rel_error", "final_rel_error", "energy_drift",
              "max_energy_drift", "diverged_at_step", "rank_deficiency", "shortened", "solver_path",
              "factorizations_per_step", "solves_per_step", "pcg_per_step", "projection_iterations_per_step",
              "capped_steps"] + [f"{s}_ms" for s in STAGES] + ["run_ms", "error"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            base = baseline_of(rows, r["scene"])
            out = {k: r.get(k) for k in fields}
            out["time_ratio_vs_box2d_default"] = ratio(r["median_step_ms"], base["median_step_ms"]) if base else ""
            if out.get("solver_path") is not None:
                out["solver_path"] = PATHS[int(out["solver_path"])]
            for k, v in out.items():
                if isinstance(v, float) and v.is_integer() and k in ("steps", "dof", "equations",
                                                                      "diverged_at_step", "rank_deficiency"):
                    out[k] = int(v)
                elif isinstance(v, float):
                    out[k] = repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf" if v < 0 else "nan")
            w.writerow(out)


def write_solvers(add, path):
    """The direct solver's factorization beside the libraries', from solver_bench's JSON."""
    with open(path) as f:
        data = json.load(f)
    times = {}
    counts = {}
    fill = {}
    for b in data.get("benchmarks", []):
        scene, solver, what = b["name"].split("/")[:3]
        times[(scene, solver, what)] = b["real_time"] * {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b.get("time_unit", "ms")]
        counts[scene] = (int(b.get("rows", 0)), int(b.get("dependent_rows", 0)))
        if "l_nonzeros" in b:
            fill[(scene, solver)] = int(b["l_nonzeros"])
    solvers = ["multifrontal", "eigen_simplicial", "cholmod_supernodal", "cholmod_simplicial"]
    products = sorted({what for (_, solver, what) in times if solver == "products"})
    add("## The direct solver against the libraries")
    add("")
    add("`bench/solver_bench` (`bench/solvers.json`): each scene's K = J W Jᵀ at its start, dependent rows taken "
        "out as the direct solver does, factored and solved by the multifrontal LDLᵀ (assembly from J's blocks "
        "included) and by Eigen's SimplicialLDLT and CHOLMOD (K given assembled: their assembly is not timed). "
        "One thread. Milliseconds per factorization / per solve; the fastest in bold. Under each, the entries of L "
        "below the diagonal (its fill, by each solver's own ordering): a solve reads each once forward and once "
        "back. The last column is the multifrontal LDLᵀ on two threads (independent subtrees apart, then the "
        "fronts above them), as the exact preset runs it with `threads = 2`.")
    add("")
    add("| system | rows (dependent out) | " + " | ".join(solvers) + " | multifrontal, 2 threads |")
    add("|---|---:|" + "---:|" * (len(solvers) + 1))
    for scene in sorted(counts, key=lambda s: (SCENE_ORDER.index(s) if s in SCENE_ORDER else 99, s)):
        rows, dependent = counts[scene]
        cells = []
        for what in ("factor", "solve"):
            vals = {s: times.get((scene, s, what)) for s in solvers}
            best = min(v for v in vals.values() if v is not None)
            cells.append({s: (f"**{v:.3g}**" if v == best else f"{v:.3g}") if v is not None else "" for s, v in vals.items()})
        two = [times.get((scene, "multifrontal_2threads", what)) for what in ("factor", "solve")]
        add(f"| {scene} | {rows} ({dependent}) | " +
            " | ".join(f"{cells[0][s]} / {cells[1][s]}" +
                       (f"<br>L: {fill[(scene, s)]:,}" if (scene, s) in fill else "") for s in solvers) +
            " | " + (" / ".join(f"{v:.3g}" for v in two) if None not in two else "") + " |")
    add("")
    analyses = [what for what in ("fresh", "kept") if any(solver == "analysis" and w == what for (_, solver, w) in times)]
    if analyses:
        add("A change of topology's analysis by the multifrontal LDLᵀ (the constraint graph, its order, the fronts), "
            "in milliseconds: of a system it has not seen (minimum degree and, for a large component with loops, "
            "nested dissection, each analysed, the cheaper kept), and of the same system less a constraint, after "
            "it (the order kept: `KeptOrder`; joint_grid's with its dependent rows still out, where the direct solver "
            "itself starts again from all its rows and orders afresh):")
        add("")
        add("| system | " + " | ".join(analyses) + " |")
        add("|---|" + "---:|" * len(analyses))
        for scene in sorted(counts, key=lambda s: (SCENE_ORDER.index(s) if s in SCENE_ORDER else 99, s)):
            add(f"| {scene} | " + " | ".join(f"{times[(scene, 'analysis', a)]:.3g}" if (scene, "analysis", a) in times else ""
                                              for a in analyses) + " |")
        add("")
    if products:
        add("The product K z = J W Jᵀ z (two passes over J's blocks, dependent rows held out) that each PCG "
            "iteration on a reused factorization makes, in milliseconds:")
        add("")
        add("| system | " + " | ".join(p.replace("k_z_", "").replace("threads", " threads") for p in products) + " |")
        add("|---|" + "---:|" * len(products))
        for scene in sorted(counts, key=lambda s: (SCENE_ORDER.index(s) if s in SCENE_ORDER else 99, s)):
            add(f"| {scene} | " + " | ".join(f"{times[(scene, 'products', p)]:.3g}" if (scene, "products", p) in times else ""
                                              for p in products) + " |")
        add("")


def write_contacts(add, path):
    """Contacts beside Box2D, from contact_bench's JSON (one run of each engine per scene)."""
    with open(path) as f:
        data = json.load(f)
    runs = []
    for b in data.get("benchmarks", []):
        scene, engine, config = b["name"].split("/")[:3]
        runs.append((scene, engine, config, b))
    add("## Contacts against Box2D")
    add("")
    add("`bench/contact_bench` (`bench/contacts.json`): Box2D's pyramid (base 20: 210 unit boxes, 1.125 m apart in a "
        "row) and a ball pit (500 disks of radius 0.1 m in a 7 m box), 600 steps at 1/60 s, full length, both engines "
        "in the same process run, sleeping off, friction 0.6 everywhere. Penetration: the deepest overlap of any "
        "contact over the run (Box2D's counted at its polygons' 1 cm skin, as its manifolds report it). Drift: how "
        "far the pyramid's top box moved from 1 s to 10 s (both engines first settle their stacks into the slop; "
        "Box2D's boxes, created touching at their cores, push apart by their skins for several seconds). "
        "`+4_substeps` is the configuration of the scene files (`scenes/pyramid.json`, `scenes/ball_pit.json`): "
        "sequential impulses at 8/3 iterations with 4 substeps, which holds every overlap within the 5 mm slop. "
        "`exact` is the exact preset with contacts (`Preset::exact`, contacts as bounded rows of the direct "
        "solver's system, penetration held to the projection's tolerance). A run cut short would be marked `*`.")
    add("")
    add("| scene | engine | config | steps | median step (ms) | mean step (ms) | × Box2D v8_p3 (median) | deepest penetration (mm) | top box drift 1-10 s (mm) | kinetic energy at the end (J) |")
    add("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for scene in ("pyramid", "ball_pit"):
        peer = next((b for s, e, c, b in runs if s == scene and e == "box2d"), None)
        for s, engine, config, b in runs:
            if s != scene:
                continue
            t = b.get("median_step_ms")
            ratio_text = f"{t / peer['median_step_ms']:.2g}" if peer and t else ""
            drift = f"{b.get('top_drift_mm', 0):.3g}" if scene == "pyramid" else ""
            steps = int(b.get("steps", 0))
            steps_text = f"{steps}" + ("*" if steps < 600 else "")
            add(f"| {scene} | {engine} | {config} | {steps_text} | {t:.3g} | {b.get('mean_step_ms', float('nan')):.3g} "
                f"| {ratio_text} | {b.get('max_penetration_mm', 0):.3g} | {drift} | {b.get('kinetic_energy_end', 0):.2g} |")
    add("")


def write_md(path, context, rows, json_path, csv_path, command, solvers_path=None, contacts_path=None):
    rel = lambda p: os.path.relpath(os.path.abspath(p), ROOT)
    lines = []
    add = lines.append
    add("# Benchmarks: linkage against Box2D 2.4")
    add("")
    add(f"Generated by `bench/report.py` from `{rel(json_path)}` (Google Benchmark JSON); "
        f"every number is also in `{rel(csv_path)}`. Reproduce with:")
    add("")
    add("```sh")
    add(command)
    add("```")
    add("")
    add(f"- **Date**: {context.get('date', '?')}")
    add(f"- **Machine**: {machine_text(context)}")
    load_avg = context.get("load_avg")
    if load_avg:
        add(f"- **Load average at start**: {', '.join(f'{x:.2f}' for x in load_avg)} "
            "(other work on the machine makes times noisy; ratios within a scene are the useful part)")
    add(f"- **linkage**: commit {context.get('commit', 'unknown')}")
    add(f"- **Build**: {context.get('compiler', '?')}, {context.get('build_type', '?')}; "
        f"Box2D {context.get('box2d', '?')}")
    if context.get("steps_override"):
        add(f"- **Steps override**: every scene ran only {context['steps_override']} steps (a quick look, "
            "not the committed results)")
    add("")
    add("Each row is one run of the scene, gravity as given, dt = 1/60 s, no contacts. "
        "Every step is timed alone; between steps (untimed) the state is read back and measured by the same "
        "engine-neutral functions for every engine (`scenes/include/linkage/scenes/measure.hpp`):")
    add("")
    add("- **median step**: median wall time of one `step()` (ms); **× Box2D** is that over Box2D's at its "
        "default 8 velocity / 3 position iterations (`box2d/v8_p3`; `box2d/v50_p50` is the high-iteration peer).")
    add("- **worst error**: the largest, over all steps, of the worst relative constraint error: "
        "|(|p_b − p_a| − L)| / L for rods, |p_b − p_a| / spacing for pins (0.1 m for the chain and cloth, "
        "1 m for joint_grid); **final error**: the same after the last step.")
    add("- **energy drift**: (E_end − E_0) / (M g H), E = Σ ½ m v² + ½ I ω² − m g·x over dynamic bodies, "
        "M the dynamic mass and H the scene's height (pendulum rod, chain length, cloth and grid height); "
        "**max |drift|** is the largest |E − E_0| / (M g H) over the run.")
    add("- **diverged**: the step at which a state went non-finite; the run stops there, its errors are ∞ and "
        "its times cover the steps before.")
    add("- **rank def.**: linkage's `StepDiagnostics::rank_deficiency` at the last step "
        "(redundant constraint rows found by the direct solver and taken out).")
    add("- **path**: the direct solver's path on most steps (`tree`: every component acyclic, linear-time "
        "elimination; `graph`: components with loops, fill-reducing order; `mixed`; `iterative`: CG or "
        "Gauss–Seidel; `sequential`: sequential impulses); **fact./step**, **solves/step**, **PCG/step**: "
        "numeric factorizations, linear systems solved and conjugate-gradient iterations on a reused "
        "factorization, per step; **proj./step**: position projection iterations per step.")
    add(f"- **steps**: steps run; `*` marks a configuration that is not a contender, shortened on a large "
        "scene (the contenders, Box2D and the exact configurations, run every scene whole).")
    add("")
    for scene in scenes_in(rows):
        desc = context.get(f"scene:{scene}", "")
        add(f"## {scene}")
        add("")
        if desc:
            add(desc + ".")
            add("")
        base = baseline_of(rows, scene)
        add("| engine | config | steps | median step (ms) | × Box2D | worst error | final error | energy drift "
            "| max \\|drift\\| | diverged | rank def. | path | fact./step | solves/step | PCG/step | proj./step |")
        add("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
        for r in rows:
            if r["scene"] != scene:
                continue
            if r["error"]:
                add(f"| {r['engine']} | {r['config']} | error: {r['error']} | | | | | | | | | | | | | |")
                continue
            t = ratio(r["median_step_ms"], base["median_step_ms"]) if base else float("nan")
            div = r["diverged_at_step"]
            div_text = f"step {int(div)}" if div and math.isfinite(div) else "no"
            steps = fmt(r["steps"], "int") + ("*" if r.get("shortened") else "")
            solver_path = PATHS[int(r["solver_path"])] if r.get("solver_path") is not None else ""
            per_step = lambda k: f"{r[k]:.2g}" if r.get(k) is not None else ""
            add(f"| {r['engine']} | {r['config']} | {steps} | {fmt(r['median_step_ms'], 'ms')} | {fmt(t, 'ratio')} "
                f"| {fmt(r['worst_rel_error'])} | {fmt(r['final_rel_error'])} | {fmt(r['energy_drift'])} "
                f"| {fmt(r['max_energy_drift'])} | {div_text} | {fmt(r['rank_deficiency'], 'int')} | {solver_path} "
                f"| {per_step('factorizations_per_step')} | {per_step('solves_per_step')} "
                f"| {per_step('pcg_per_step')} | {per_step('projection_iterations_per_step')} |")
        add("")
    write_targets(add, rows)
    if solvers_path and os.path.exists(solvers_path):
        write_solvers(add, solvers_path)
    if contacts_path and os.path.exists(contacts_path):
        write_contacts(add, contacts_path)
    notes = os.path.join(HERE, "notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            add(f.read().rstrip())
        add("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def write_targets(add, rows):
    """The targets, each scene's best exact run against it, and where its time goes."""
    add("## Against the targets")
    add("")
    add("Worst relative constraint error ≤ 1e-6 over the whole run at a median step of at most the given "
        "multiple of Box2D 8/3's, measured side by side in this run. Best: the fastest linkage configuration "
        "that holds 1e-6 over the full scene.")
    add("")
    add("| scene | target × Box2D | best configuration | worst error | median step (ms) | × Box2D | met |")
    add("|---|---:|---|---:|---:|---:|---|")
    best_rows = []
    for scene, target in TARGETS.items():
        base = baseline_of(rows, scene)
        held = [r for r in rows if r["scene"] == scene and r["engine"] == "linkage" and not r["error"]
                and not r.get("shortened") and r["worst_rel_error"] is not None and r["worst_rel_error"] <= 1e-6]
        if not base or not held:
            add(f"| {scene} | {target:g} | none holds 1e-6 | | | | no |")
            continue
        best = min(held, key=lambda r: r["median_step_ms"])
        best_rows.append(best)
        t = ratio(best["median_step_ms"], base["median_step_ms"])
        add(f"| {scene} | {target:g} | {best['config']} | {fmt(best['worst_rel_error'])} "
            f"| {fmt(best['median_step_ms'], 'ms')} | {fmt(t, 'ratio')} | "
            f"{'yes' if t <= target else f'no: {t / target:.2g}× the target'} |")
    add("")
    if not best_rows:
        return
    add("Where the time of those runs goes (mean ms per step, by stage of `StepDiagnostics::stage_seconds`):")
    add("")
    add("| scene | config | " + " | ".join(STAGES) + " |")
    add("|---|---|" + "---:|" * len(STAGES))
    for r in best_rows:
        add(f"| {r['scene']} | {r['config']} | " + " | ".join(fmt(r.get(f'{s}_ms'), 'ms') for s in STAGES) + " |")
    add("")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", nargs="?", default=os.path.join(HERE, "results.json"))
    p.add_argument("--csv", default=os.path.join(HERE, "results.csv"))
    p.add_argument("--md", default=os.path.join(ROOT, "BENCHMARKS.md"))
    p.add_argument("--command", default="scripts/bench.sh", help="the command shown to reproduce the results")
    p.add_argument("--solvers", default=None, help="solver_bench's JSON, for the factorization table")
    p.add_argument("--contacts", default=None, help="contact_bench's JSON, for the contacts table")
    a = p.parse_args()
    context, rows = load(a.json)
    if not rows:
        sys.exit(f"report.py: no benchmarks in {a.json}")
    write_csv(a.csv, rows)
    write_md(a.md, context, rows, a.json, a.csv, a.command, a.solvers, a.contacts)
    print(f"report.py: {len(rows)} runs -> {os.path.relpath(a.csv)}, {os.path.relpath(a.md)}")


if __name__ == "__main__":
    main()
