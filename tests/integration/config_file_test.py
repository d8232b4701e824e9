"""linkaged --config FILE (a TOML file of its flags) on the real binary: the
file's values are used (a limit from it holds), a flag on the command line
wins over LINKAGE_* in the environment, which wins over the file; LINKAGE_CONFIG
names a file as --config does (and --config wins); a flag key (insecure)
works; a misspelt key, a bad value and a missing file are refused.

Run: LINKAGED=build/server/linkaged LINKCTL=build/client/linkctl/linkctl \
     python3 -m pytest tests/integration/config_file_test.py     (~3 s)
"""
import subprocess

import pytest

from linkaged_process import LINKAGED, events, parse, run


def toml(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def tick_rate(args, env=None):
    """The default tick rate linkaged says it serves with."""
    _, logged, _ = run(["--log-format", "json", *args], env=env)
    (listening,) = events(parse(logged), "server.listening")
    return listening["fields"]["tick_rate"]


def test_the_files_values_hold(tmp_path):
    # Its listen address loses to the test's --listen 127.0.0.1:0.
    config = toml(tmp_path, "linkaged.toml",
                  'listen = "127.0.0.1:1"\ntick-rate = 120\nmax-worlds = 2\nlog-format = "json"\n'
                  'max-connections-per-peer = 7\nmax-unread-bytes-per-peer = 33554432\n')

    def session(server):
        server.ctl("world", "create", "second")
        third = subprocess.run(server.command("world", "create", "third"), capture_output=True, text=True)
        assert third.returncode == 8, third.stderr  # RESOURCE_EXHAUSTED: --max-worlds 2 from the file
        assert "--max-worlds" in third.stderr

    _, logged, _ = run(["--config", config], session)
    (listening,) = events(parse(logged), "server.listening")  # log-format from the file: JSON
    assert listening["fields"]["tick_rate"] == 120
    assert listening["fields"]["max_connections_per_peer"] == 7
    assert listening["fields"]["max_connections"] > 0  # 0: the file limit's share
    assert listening["fields"]["max_unread_bytes_per_peer"] == 32 << 20
    assert listening["fields"]["max_unread_bytes"] == 256 << 20  # the default
    assert listening["fields"]["max_transport_bytes"] == 512 << 20


def test_flags_win_over_the_environment_which_wins_over_the_file(tmp_path):
    config = toml(tmp_path, "linkaged.toml", "tick-rate = 120\n")
    assert tick_rate(["--config", config]) == 120
    assert tick_rate(["--config", config], env={"LINKAGE_TICK_RATE": "90"}) == 90
    assert tick_rate(["--config", config, "--tick-rate", "75"], env={"LINKAGE_TICK_RATE": "90"}) == 75


def test_linkage_config_names_the_file_and_config_wins_over_it(tmp_path):
    first = toml(tmp_path, "first.toml", "tick-rate = 120\n")
    second = toml(tmp_path, "second.toml", "tick-rate = 100\n")
    assert tick_rate([], env={"LINKAGE_CONFIG": first}) == 120
    assert tick_rate(["--config", second], env={"LINKAGE_CONFIG": first}) == 100


def test_a_flag_key(tmp_path):
    # Another machine's address: served only with insecure = true.
    def config(insecure):
        return toml(tmp_path, f"{insecure}.toml", f'listen = "0.0.0.0:0"\ninsecure = {insecure}\n')

    refused = subprocess.run([LINKAGED, "--log-format", "json", "--config", config("false")],
                             capture_output=True, timeout=10)
    assert refused.returncode == 2
    assert events(parse(refused.stdout), "server.refused")
    _, logged, _ = run(["--log-format", "json", "--config", config("true")], loopback=False)
    (listening,) = events(parse(logged), "server.listening")
    assert listening["fields"]["listen"] == "0.0.0.0:0"


@pytest.mark.parametrize("text, says", [
    ("tick-rat = 120\n", "tick-rat"),          # a misspelt key
    ('tick-rate = "fast"\n', "--tick-rate"),   # a value that is no number
    ("max-worlds = 0\n", "--max-worlds"),      # a value its flag refuses
])
def test_a_bad_file_is_refused(tmp_path, text, says):
    config = toml(tmp_path, "bad.toml", text)
    proc = subprocess.run([LINKAGED, "--listen", "127.0.0.1:0", "--config", config],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode != 0 and says in proc.stderr, proc.stderr


def test_a_missing_file_is_refused(tmp_path):
    missing = str(tmp_path / "missing.toml")
    proc = subprocess.run([LINKAGED, "--config", missing], capture_output=True, text=True, timeout=10)
    assert proc.returncode != 0 and missing in proc.stderr
    proc = subprocess.run([LINKAGED], capture_output=True, text=True, timeout=10, env={"LINKAGE_CONFIG": missing})
    assert proc.returncode == 2 and "LINKAGE_CONFIG" in proc.stderr and missing in proc.stderr
