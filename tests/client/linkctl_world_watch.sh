#!/usr/bin/env bash
# linkctl world watch against a real linkaged, on a pendulum (a 1 kg bob on a
# 1 m rod, let go level with its pivot): piped, one line per sample with
# rising ticks and times, an energy that stays where it started and a small
# max |C|; --once, --json, a world the server paused as diverged (why, as a
# '#' line), a world that does not exist, a world deleted while watched,
# --seconds as a bound; and in a terminal (script(1)), the plot drawn
# in place, the cursor hidden while it runs and shown again after Ctrl-C.
set -u
source "$(dirname "$0")/common.sh" "$@"
cd "$WORK"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
lc() { "$LINKCTL" "$@"; }

lc world create pend --integrator rk4 >/dev/null &&
  lc --world pend body add --name pivot --motion fixed --pos 0,0 >/dev/null &&
  lc --world pend body add --name bob --pos 1,0 --mass 1 >/dev/null &&
  lc --world pend constraint add distance --a pivot --b bob --length 1 >/dev/null || fail "building the pendulum"

# --- piped: TICK TIME ENERGY MAX_ERROR lines ---
start=$(date +%s%N)
lc world watch pend --seconds 1.5 --rate 20 >lines.txt 2>err.txt; rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc -eq 0 ] || fail "world watch --seconds 1.5 exited $rc: $(cat err.txt)"
[ $ms -lt 6000 ] || fail "world watch --seconds 1.5 took $ms ms"
n=$(wc -l <lines.txt)
[ "$n" -ge 5 ] || fail "only $n samples in 1.5 s at 20 Hz"
grep -q $'\x1b' lines.txt && fail "escape codes in piped output"
# Every line four numbers; ticks and times rise; E within 0.1 J of the first
# (a swinging pendulum trades 9.81 J between kinetic and potential energy);
# 0 <= max |C| < 1 mm.
awk 'NF != 4 { print "line " NR " has " NF " fields: " $0; bad = 1; next }
     NR > 1 && ($1 <= tick || $2 <= time) { print "line " NR " does not advance: " $0; bad = 1 }
     NR == 1 { e0 = $3 }
     { d = $3 - e0; if (d < 0) d = -d; if (d > 0.1 || $3 != $3 + 0) { print "energy drifts: " $0; bad = 1 } }
     $4 < 0 || $4 > 1e-3 { print "max |C| implausible: " $0; bad = 1 }
     { tick = $1; time = $2 }
     END { exit bad }' lines.txt || fail "piped samples (above)"
# The samples follow a running world: 1.5 s of the wall's clock is up to
# 1.5 s of the world's (less when a busy machine makes ticks overrun).
span=$(awk 'NR == 1 { t0 = $2 } { t = $2 } END { print t - t0 }' lines.txt)
awk -v s="$span" 'BEGIN { exit !(s > 0.1 && s < 2.0) }' || fail "the samples span $span s of world time in 1.5 s"

# --- --once and --json ---
once=$(lc world watch pend --once) || fail "--once exited $?"
[ "$(wc -l <<<"$once")" -eq 1 ] && [ "$(wc -w <<<"$once")" -eq 4 ] || fail "--once printed '$once'"
lc --json world watch pend --once | jq -e '(.tick > 0) and (.time > 0) and (.energy | type == "number")
                                         and (.max_error >= 0)' >/dev/null || fail "--json --once"
LINKCTL_WORLD=pend lc world watch --once >/dev/null || fail "the world from --world (LINKCTL_WORLD)"

# --- a world the server paused as diverged: why, once, as a '#' line ---
lc world create strict --max-error 1e-12 >/dev/null &&
  lc --world strict body add --name pivot --motion fixed --pos 0,0 >/dev/null &&
  lc --world strict body add --name bob --pos 1,0 --mass 1 >/dev/null &&
  lc --world strict constraint add distance --a pivot --b bob --length 1 >/dev/null || fail "building a strict world"
for _ in $(seq 50); do lc world get strict | grep -q "halted" && break; sleep 0.1; done
halted=$(lc world watch strict --seconds 0.5) || fail "watching a halted world exited $?"
[ "$(grep -c '^# halted: tick [0-9]* diverged' <<<"$halted")" -eq 1 ] && grep -qv '^#' <<<"$halted" ||
  fail "a halted world's lines: '$halted'"

# --- errors ---
lc world watch nowhere --once >/dev/null 2>err.txt; rc=$?
[ $rc -eq 5 ] && grep -q "no world named 'nowhere'" err.txt || fail "missing world: exit $rc, $(cat err.txt)"
lc world watch pend --rate 0 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 3 ] || fail "--rate 0: exit $rc"
lc world create doomed >/dev/null || fail "creating a world to delete"
lc world watch doomed --seconds 20 >doomed.txt 2>err.txt &
watcher=$!
sleep 1
lc world delete doomed >/dev/null || fail "deleting the watched world"
wait $watcher; rc=$?
[ $rc -eq 14 ] && grep -q "deleted" err.txt || fail "deleted while watched: exit $rc, '$(cat err.txt)'"
[ -s doomed.txt ] || fail "no samples before the world was deleted"

# --- in a terminal: drawn in place, Ctrl-C restores the cursor ---
script -qfec "stty cols 70 rows 20; $LINKCTL world watch pend --rate 10 & pid=\$!; sleep 1.5; kill -INT \$pid; wait \$pid; echo exit=\$?" \
  tty.txt >/dev/null
grep -q 'exit=0' tty.txt || fail "Ctrl-C: $(grep -a exit= tty.txt)"
grep -qF $'\x1b[?25l' tty.txt || fail "the cursor was not hidden"
# The last escape before exit= shows the cursor again.
tail -c 400 tty.txt | grep -qF $'\x1b[?25h'$'\r\n''exit=0' ||
  tail -c 400 tty.txt | grep -qF $'\x1b[?25hexit=0' || fail "the cursor was not shown again at the end"
grep -qF "energy (J)" tty.txt && grep -qF "max |C|" tty.txt && grep -qF "world pend  tick" tty.txt ||
  fail "no plot in the terminal"
# Each redraw backs up over the 19 lines of the last one (20 rows, one left for the cursor).
redraws=$(grep -aoF $'\x1b[19F' tty.txt | wc -l)
[ "$redraws" -ge 3 ] || fail "$redraws redraws in place in 1.5 s at 10 Hz"

if [ $failures -ne 0 ]; then echo "$failures world watch check(s) failed"; exit 1; fi
echo "world watch: $n samples piped, $redraws redraws in a terminal"
