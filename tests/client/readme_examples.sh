#!/usr/bin/env bash
# Runs the linkctl examples of README.md in order against a fresh linkaged:
# the fenced block after the "linkctl-examples" marker. Each line must exit 0,
# except lines marked "# fails", which must exit non-zero with a message.
set -u
source "$(dirname "$0")/common.sh" "$@"
export PATH="$(dirname "$LINKCTL"):$PATH"
cd "$WORK"
ln -s "$ROOT/scenes" scenes

# The block's lines: from the marker's fence to the closing fence.
mapfile -t lines < <(awk '/<!-- linkctl-examples/ {marked = 1; next}
                          marked && /^```/ {if (inside) exit; inside = 1; next}
                          inside {print}' "$ROOT/README.md")
if [ ${#lines[@]} -lt 10 ]; then echo "FAIL: found ${#lines[@]} example lines in README.md"; exit 1; fi

failures=0
for line in "${lines[@]}"; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  if [[ "$line" == *"# fails"* ]]; then
    timeout 30 bash -c "${line%%# fails*}" >"$WORK/out" 2>"$WORK/err"; rc=$?
    if [ $rc -eq 0 ] || [ ! -s "$WORK/err" ]; then
      echo "FAIL (exit $rc, wanted an error): $line"; failures=$((failures + 1))
    else
      echo "ok (exit $rc as documented): $line"
    fi
  else
    timeout 30 bash -c "$line" >"$WORK/out" 2>"$WORK/err"; rc=$?
    if [ $rc -ne 0 ]; then
      echo "FAIL (exit $rc): $line"; cat "$WORK/err"; failures=$((failures + 1))
    else
      echo "ok: $line"
    fi
  fi
done
if [ $failures -ne 0 ]; then echo "$failures README example(s) failed"; exit 1; fi
echo "every README linkctl example ran"
