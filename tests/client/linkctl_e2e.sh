#!/usr/bin/env bash
# linkctl end to end against a real linkaged: every noun and verb, human and
# --json output, and bad flags, ids and files giving a clear message and the
# exit code of their gRPC status.
set -u
source "$(dirname "$0")/common.sh" "$@"
cd "$WORK"
failures=0

# ok CMD...: exit 0. Output in $out.
ok() {
  out=$("$LINKCTL" "$@" 2>"$WORK/err"); local rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL (exit $rc): linkctl $*"; cat "$WORK/err"; failures=$((failures + 1)); fi
}
# js FILTER CMD...: exit 0 and jq -e FILTER holds on the JSON output.
js() {
  local filter=$1; shift
  ok --json "$@"
  if ! echo "$out" | jq -e "$filter" >/dev/null 2>&1; then
    echo "FAIL (jq '$filter'): linkctl --json $*"; echo "$out" | head -c 400; echo; failures=$((failures + 1))
  fi
}
# has TEXT: the last output contains TEXT.
has() {
  if ! grep -qF -- "$1" <<<"$out"; then echo "FAIL: output lacks '$1':"; echo "$out" | head -20; failures=$((failures + 1)); fi
}
# fails CODE TEXT CMD...: exit CODE and TEXT in the error message.
fails() {
  local code=$1 text=$2; shift 2
  "$LINKCTL" "$@" >"$WORK/out" 2>"$WORK/err"; local rc=$?
  if [ $rc -ne "$code" ] || ! grep -qF -- "$text" "$WORK/err"; then
    echo "FAIL (exit $rc, wanted $code with '$text'): linkctl $*"; cat "$WORK/err"; failures=$((failures + 1))
  fi
}

# --- help at every level ---
ok --help; has "Examples:"; has "world"
for noun in world body constraint force scene batch watch stats health pause resume step reset completion; do ok $noun --help; has "Examples:"; done
ok constraint add distance --help; has "--length"
ok constraint add trajectory --help; has "--amplitude"
ok world watch --help; has "--seconds"; has "world WORLD"
fails 3 "A subcommand is required" completion
fails 3 "fish" completion fish

# --- health (the container's HEALTHCHECK) ---
ok health; has "SERVING"
js '.status == "SERVING"' health linkage.v1.ConstraintService
fails 5 "service name unknown" health linkage.v1.NoSuchService

# --- worlds ---
js '.worlds | map(.name) | index("default") != null' world list
ok world list; has "default"; has "NAME"
ok world create lab --solver cg --integrator rk4 --paused; has "world lab: created, paused"
js '.world.settings.solver == "LINEAR_SOLVER_CONJUGATE_GRADIENT"' world get lab
ok world get lab; has "solver:       cg"
js '.world.settings.substeps == 2 and .world.settings.gravity.y == -1.62' world update lab --substeps 2 --gravity 0,-1.62
ok world update lab --dynamics sequential-impulses --project both; has "updated"
fails 3 "--solver: 'fast' is not one of" world create bad --solver fast
fails 9 "a world named 'lab' exists" world create lab
fails 5 "no world named 'nope'" --world nope world get

export LINKCTL_WORLD=lab
# --- bodies ---
ok body add --name bob --pos 1,0 --mass 1; has "created body 0:1"
js '.id.index == 1 and .id.generation == 1' body add --name anchor --motion fixed --pos=-1,0
ok body add --name wheel --rigid --disk 0.5 --pos 0,3; has "created body"
ok body add --name plate --rigid --box 0.5,0.25 --density 2 --pos 3,3
ok body add --name tri --rigid --polygon "0,0;1,0;0,1" --pos 5,5
printf '[{"name": "p1", "position": {"x": 2}, "mass": 1}, {"name": "p2", "position": {"x": 3}, "mass": 1}]' >bodies.json
ok body add-many bodies.json; has "created body 5:1"; has "created body 6:1"
js '.bodies | length == 7' body list
ok body list; has "bob"; has "rigid"; has "fixed"
js '.body.def.name == "bob"' body get 0
js '.body.def.name == "bob"' body get 0:1
js '(.body.id.index // 0) == 0' body get bob
ok body get wheel; has "body 2:1 wheel"
js '.body.def.velocity.y == 5' body update bob --vel 0,5
ok body update p2 --name p2b --mass 3; has "updated body 6:1"
js '.body.def.position.x == 3 and .body.def.name == "p2b"' body get p2b   # only the flags given changed
fails 3 "give at least one field" body update p2b
js '.body.def.mass == 3' body get p2b
fails 5 "no body with index 42" body get 42
fails 5 "" body get 0:9
fails 5 "no body named" body get nobody
fails 3 "--pos: 'x,y' is not a vector" body add --pos x,y --mass 1
fails 3 "Could not convert" body add --mass heavy
fails 3 "mass" body add --pos 0,0  # a particle needs a mass: the server's INVALID_ARGUMENT
fails 3 "give one shape" body add --rigid --disk 1 --box 1,1
fails 3 "--motion: 'floating'" body add --mass 1 --motion floating

# --- constraints: every type ---
ok constraint add distance --a anchor --b bob --length 2 --name rod; has "created distance constraint 0:1"
js '.id.index == 1' constraint add rope --a anchor --b p1 --max-length 4
ok constraint add pin --a wheel --b plate --anchor-a 0.5,0 --anchor-b=-0.5,0
ok constraint add point-on-line --b p1 --axis 1,0
ok constraint add point-on-circle --b p2b --radius 3
ok constraint add weld --a plate --b tri
ok constraint add relative-angle --a wheel --b tri --angle 0.5 --soft 2
ok constraint add gear --a wheel --b plate --radius-a 1 --radius-b 2
ok constraint add rack-and-pinion --rack tri --pinion wheel --radius 0.5
ok constraint add motor --b wheel --speed 2 --max-force 50
ok constraint add trajectory --body p1 --origin=2,0 --amplitude 0.1,0 --frequency 0.5,0
# point-on-plane is 3D only: a 3D world takes it.
ok world create space --dimension 3 --gravity 0,0,0
ok --world space body add --name s1 --pos 0,0,1 --mass 1
ok --world space constraint add point-on-plane --b s1 --normal 0,0,1; has "created point-on-plane constraint"
printf '[{"distance": {"a": {"name": "p1"}, "b": {"name": "p2b"}}}]' >rods.json
js '.ids | length == 1' constraint add-many rods.json
js '.constraints | length == 12' constraint list
ok constraint list; has "rack-and-pinion"; has "LAMBDA"
js '.constraint.def.distance.length == 2' constraint get rod
ok constraint get 0; has "constraint 0:1 (distance) rod"
js '.constraint.def.distance.length == 2.5' constraint update rod --length 2.5
ok constraint update 9 --speed 4; has "updated constraint 9:1"
js '.constraint.def.motor.speed == 4' constraint get 9:1
ok constraint update 0 --soft 3 --damping-ratio 0.5
fails 3 "has no speed" constraint update rod --speed 1
fails 3 "must be > 0" constraint add distance --a bob --b p1 --length -1
fails 5 "no constraint named" constraint get nothing
fails 5 "" constraint get 0:7
fails 3 "name the same body" constraint add distance --a bob --b bob
fails 3 "" constraint add
fails 3 "unknown command or argument 'spaghetti'" constraint add spaghetti
ok constraint remove 1; has "removed constraint 1:1"
js '. == {}' constraint remove 3:1

# --- forces ---
ok force apply --body bob --force 0,10 --ticks 30; has "created force 0:1"
js '.id.index == 1' force spring --a bob --b p1 --stiffness 50 --damping 1
ok force spring --a p1 --anchor-b 0,2 --rest-length 1
js '.forces | length == 3' force list
ok force list; has "spring"; has "applied"
js '.force.def.spring.stiffness == 200' force update 1 --stiffness 200
fails 9 "only springs can be updated" force update 0 --stiffness 1
ok force impulse --body bob --impulse 1,0; has "applied impulse"
js '. == {}' force impulse --body wheel --angular-impulse 2
ok force remove 2; has "removed force 2:1"
fails 5 "no force with index 99" force remove 99
fails 3 "not a force id" force remove spring
fails 3 "name a body" force apply --body world --force 1,0
fails 3 "required" force apply --force 1,0

# --- time ---
js '.world.paused == true' pause
ok step 10; has "stepped 10"
js '.world.tick == "11" or .world.tick == 11' step
js '.ticks == 1 and .ended == "STEP_END_DONE"' step
ok --timeout 1 step 1000000; has "of 1000000 ticks (the call's deadline came)"
fails 3 "" step 0
js '.world.limits.max_error == 0.5' world update lab --max-error 0.5
fails 3 "limits.max_error" world update lab --max-error -1
# 0 lifts the bound (this world gains energy under sequential impulses and RK4:
# with 0.5 it would pause itself as diverged within a few hundred ticks).
js '(.world.limits.max_error // 0) == 0' world update lab --max-error 0
ok resume; has "running"
js '(.world.paused // false) == false' resume
fails 9 "" step 1   # a running world is not stepped

# --- stats and watch ---
js '.world.name == "lab" and (.diagnostics | type == "object")' stats
ok stats; has "total energy (J)"
ok watch --count 2 --rate 30 --duration 20; has "ID"; has "bob"
out=$("$LINKCTL" --json watch --count 3 --rate 30 --duration 20 2>/dev/null)
[ "$(echo "$out" | wc -l)" -eq 3 ] || { echo "FAIL: watch --json --count 3 gave $(echo "$out" | wc -l) lines"; failures=$((failures + 1)); }
echo "$out" | head -1 | jq -e '.changes.full == true and (.body_index | length == 7)' >/dev/null ||
  { echo "FAIL: the first watch frame is not a full one"; failures=$((failures + 1)); }
fails 5 "no world named" --world nope watch --count 1
# A paused world sends its first frame and then none until it steps.
ok pause
ok watch --duration 0.5; has "(paused)"
# Another client's rename reaches a watcher with the next frame (the change
# records' updates); its first frame is awaited, so the rename comes after it.
# (A paused world sends a frame after every command, reads included: the
# last one the watcher shows must have the new name.)
"$LINKCTL" watch --rate 0 --duration 4 >watch.txt 2>&1 &
watcher=$!
for _ in $(seq 100); do grep -q "^world " watch.txt && break; sleep 0.1; done
ok body update bob --name bobby
wait $watcher
awk '/^world /{t=""} {t=t $0 "\n"} END{printf "%s", t}' watch.txt | grep -q "^0:1 *bobby " ||
  { echo "FAIL: the watcher's last frame does not show the rename"; cat watch.txt; failures=$((failures + 1)); }
ok body update bobby --name bob

# --- scenes, batches, reset ---
ok scene save saved.json; has "saved world lab"
jq -e '.bodies | length == 7' saved.json >/dev/null || { echo "FAIL: saved.json"; failures=$((failures + 1)); }
ok scene save; has '"bodies"'
ok scene load "$ROOT/scenes/chain.json"; has "loaded"
js '.world.body_count > 0' world get
ok reset; has "reset"
cat >batch.json <<'JSON'
[{"create_body": {"name": "b1", "position": {"x": 1}, "mass": 1}},
 {"add_constraint": {"distance": {"b": {"name": "b1"}}}}]
JSON
js '.results | length == 2' batch apply batch.json
ok batch apply <(echo '{"commands": [{"create_body": {"name": "b2", "position": {"x": 2}, "mass": 1}}]}'); has "applied 1 command"
echo '[{"create_body": {"name": "b3", "mass": 1}}, {"remove_body": {"name": "ghost"}}]' >bad_batch.json
fails 5 "ghost" batch apply bad_batch.json
fails 5 "b3" body get b3   # all or nothing
fails 5 "cannot open" scene load missing.json
echo '{"bodies": 3}' >broken.json
fails 3 "not a scene" scene load broken.json
fails 3 "not a batch" batch apply broken.json

# --- bodies removed with what hangs on them ---
js '.removed_constraints | length >= 1' body remove b1
ok world delete space; has "deleted world space"
fails 5 "" world delete space

# --- usage and connection errors ---
fails 3 "unknown command or argument 'frobnicate'" frobnicate
fails 3 "A subcommand is required" body
fails 3 "--frob" body list --frob
"$LINKCTL" --json body get 42 >/dev/null 2>"$WORK/err"
jq -e '.error.code == 5 and .error.name == "NOT_FOUND"' "$WORK/err" >/dev/null || { echo "FAIL: --json error"; cat "$WORK/err"; failures=$((failures + 1)); }
fails 14 "cannot reach linkaged" --server 127.0.0.1:1 --timeout 0.3 world list
fails 14 "cannot reach linkaged" --server 127.0.0.1:1 --timeout 0.3 health

# --- linkaged's flags from the environment (as containers set them); a flag wins ---
ENV_PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LINKAGE_LISTEN="127.0.0.1:$ENV_PORT" LINKAGE_SCENE="$ROOT/scenes/pendulum.json" LINKAGE_TICK_RATE=30 \
  "$LINKAGED" --tick-rate 120 --log-level warn >"$WORK/env-linkaged.log" 2>&1 &
env_server=$!
js '.world.body_count == 2' --server "127.0.0.1:$ENV_PORT" world get default
js '.world.settings.tick_rate == 120' --server "127.0.0.1:$ENV_PORT" world create from-env
kill -TERM "$env_server" && wait "$env_server"

if [ $failures -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "linkctl end to end: every check passed"
