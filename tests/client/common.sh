# Shared by the linkctl tests: start linkaged on a free loopback port, stop it
# on exit, and run linkctl against it. Usage: source common.sh LINKCTL LINKAGED ROOT
LINKCTL=$(realpath "$1")
LINKAGED=$(realpath "$2")
ROOT=$(realpath "$3")
WORK=$(mktemp -d)
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$LINKAGED" --listen "127.0.0.1:$PORT" --scene "$ROOT/scenes/demo.json" --log-level warn >"$WORK/linkaged.log" 2>&1 &
SERVER_PID=$!
cleanup() {
  kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
export LINKCTL_SERVER="127.0.0.1:$PORT"
unset LINKCTL_WORLD
# linkctl's connect retries until the server listens (its --timeout, 10 s).
