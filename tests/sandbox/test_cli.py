"""``qflow check`` and ``qflow doctor`` through the real command line."""

from __future__ import annotations

import json

import pytest

from qflow_tui.commands.check import TestFileError, split_asserts
from tests.helpers import qflow


@pytest.fixture
def files(tmp_path):
    code = tmp_path / "code.py"
    code.write_text("import math\ndef area(r):\n    return math.pi * r * r\n")
    tests = tmp_path / "tests.py"
    tests.write_text(
        "# visible tests\n"
        "assert math.isclose(area(1), 3.14159, rel_tol=1e-3)\n\n"
        "assert area(0) == 0.0\n"
        "assert area(\n    2\n) == 12\n"
    )
    return code, tests


def test_check_json(files):
    code, tests = files
    p = qflow("check", "--code", str(code), "--tests", str(tests), "--json", "--timeout", "2")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert [r["status"] for r in data["results"]] == ["pass", "pass", "fail"]
    assert data["passed"] == 2 and data["total"] == 3 and data["isolation"]
    assert data["results"][2]["actual"] == "12.566370614359172"
    assert set(data["results"][0]) == {"test", "status", "actual", "error"}


def test_check_table(files):
    code, tests = files
    p = qflow("check", "--code", str(code), "--tests", str(tests))
    assert p.returncode == 0, p.stderr
    assert "2/3 passed" in p.stdout and "isolation" in p.stdout


def test_check_with_setup_and_entry_point(tmp_path):
    (tmp_path / "c.py").write_text("def g(x):\n    return x + K\n")
    (tmp_path / "s.py").write_text("K = 5\n")
    (tmp_path / "t.py").write_text("assert g(1) == 6\n")
    p = qflow(
        "check",
        "--code",
        str(tmp_path / "c.py"),
        "--tests",
        str(tmp_path / "t.py"),
        "--setup",
        str(tmp_path / "s.py"),
        "--entry-point",
        "g",
        "--json",
    )
    assert json.loads(p.stdout)["passed"] == 1


@pytest.mark.parametrize(
    "tests_text,needle",
    [
        ("", "no assert"),
        ("x = 1\nassert f(1) == 1\n", "line 1: expected an assert"),
        ("assert f(1) == 1\nassert (\n", "not valid Python"),
    ],
)
def test_check_bad_input(tmp_path, tests_text, needle):
    (tmp_path / "c.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "t.py").write_text(tests_text)
    p = qflow("check", "--code", str(tmp_path / "c.py"), "--tests", str(tmp_path / "t.py"))
    assert p.returncode != 0
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_check_missing_file(tmp_path):
    p = qflow("check", "--code", str(tmp_path / "nope.py"), "--tests", str(tmp_path / "nope2.py"))
    assert p.returncode != 0 and "code file" in p.stderr and "no such file" in p.stderr


def test_check_program_failing_to_load_still_exits_0(tmp_path):
    (tmp_path / "c.py").write_text("def f(x) return x\n")
    (tmp_path / "t.py").write_text("assert f(1) == 1\n")
    p = qflow("check", "--code", str(tmp_path / "c.py"), "--tests", str(tmp_path / "t.py"), "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["results"][0]["status"] == "error"


def test_split_asserts():
    assert split_asserts("# c\n\nassert f(1) == 1\nassert f(\n 2) == 2  # x\n") == [
        "assert f(1) == 1",
        "assert f(\n 2) == 2",
    ]
    with pytest.raises(TestFileError, match="line 2"):
        split_asserts("assert f(1)\nprint(1)\n")


def test_doctor_names_keys_but_never_values():
    secret = "sk-ant-DOCTOR-SECRET-VALUE"
    p = qflow("doctor", env={"ANTHROPIC_API_KEY": secret})
    assert p.returncode == 0, p.stderr
    assert "sandbox isolation:" in p.stdout
    assert "ANTHROPIC_API_KEY" in p.stdout and secret not in p.stdout + p.stderr
    for layer in ("bwrap", "seccomp", "uid", "interpreter"):
        assert layer in p.stdout
    pj = qflow("doctor", "--json", env={"ANTHROPIC_API_KEY": secret})
    data = json.loads(pj.stdout)
    assert data["api_keys"]["ANTHROPIC_API_KEY"] is True and secret not in pj.stdout


def test_doctor_reports_a_forced_fallback():
    p = qflow("doctor", "--json", env={"QFLOW_SANDBOX_ISOLATION": "rlimits"})
    data = json.loads(p.stdout)
    assert data["isolation"].startswith("rlimits only")
    assert data["protects"]["network"] is False
    # The probe really connected: the level claims nothing it cannot hold.
    assert data["probes"]["network"] == {"claimed": False, "held": False, "detail": "connected to 127.0.0.1"}
    assert p.returncode == 0


def test_doctor_backs_every_claim_with_a_probe():
    p = qflow("doctor", "--json")
    data = json.loads(p.stdout)
    assert set(data["probes"]) == set(data["protects"])
    for threat, probe in data["probes"].items():
        assert probe["claimed"] == data["protects"][threat]
        assert probe["held"] or not probe["claimed"], (threat, probe)
    assert p.returncode == 0
    quick = qflow("doctor", "--json", "--no-probes")
    assert json.loads(quick.stdout)["probes"] == {}


@pytest.mark.parametrize(
    "tests_text,needle",
    [
        ("assert f(1) == " + "-" * 100_000 + "1\n", "nested too deeply"),
        ("assert f(1) == " + "+".join(["1"] * 200_000) + "\n", "nested too deeply"),
        ("assert " + "not " * 100_000 + "f(1)\n", "nested too deeply"),
        ("assert f(1) == " + "+".join(["1"] * 150) + "\n", "nested more than 100 levels"),
        ("assert f(1) == 1\x00\n", "null"),
    ],
    ids=["unary-chain", "plus-chain", "not-chain", "plus-150", "null-byte"],
)
def test_hostile_test_files_get_one_line(tmp_path, tests_text, needle):
    (tmp_path / "c.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "t.py").write_text(tests_text)
    p = qflow("check", "--code", str(tmp_path / "c.py"), "--tests", str(tmp_path / "t.py"))
    assert p.returncode == 2, p.stderr
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "Traceback" not in p.stderr


def test_split_asserts_is_linear_on_long_lines_and_many_asserts():
    # One 1M-character line, and many asserts on one line: each line is read
    # once (the old splitter re-split the whole text per assert).
    line = "assert f(1) == [" + ",".join(["1"] * 333_000) + "]\n"
    assert split_asserts(line) == [line.strip()]
    semi = "; ".join(f"assert f({i}) == {i}" for i in range(20_000)) + "\n"
    got = split_asserts(semi)
    assert len(got) == 20_000 and got[-1] == "assert f(19999) == 19999"
    multi = "assert f(\n  'é',\n  2) == 'x'\nassert g(1)\n"
    assert split_asserts(multi) == ["assert f(\n  'é',\n  2) == 'x'", "assert g(1)"]


@pytest.mark.parametrize("value", ["inf", "1e308", "1e-9", "nan", "-1", "0"])
def test_timeout_out_of_range_is_one_line(tmp_path, value):
    (tmp_path / "c.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "t.py").write_text("assert f(1) == 1\n")
    p = qflow("check", "--code", str(tmp_path / "c.py"), "--tests", str(tmp_path / "t.py"), "--timeout", value)
    assert p.returncode == 2, p.stderr
    assert "--timeout" in p.stderr and "seconds" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_sandbox_config_refuses_unusable_limits():
    from qflow_tui.core.sandbox import SandboxConfig

    for bad in (float("inf"), 1e308, 1e-9, float("nan")):
        with pytest.raises(ValueError, match="seconds"):
            SandboxConfig(timeout=bad)


@pytest.mark.parametrize(
    "tests_text",
    [
        "assert f(1) == " + "-" * 100_000 + "1\n",
        "assert f(1) == " + "+".join(["1"] * 200_000) + "\n",
        "assert f(1) == 1\x00\n",
    ],
    ids=["unary", "plus", "null"],
)
def test_problem_parsing_refuses_hostile_tests_with_one_line(tests_text):
    from qflow_tui.core.problem import ProblemError, make_problem

    with pytest.raises(ProblemError) as info:
        make_problem("Return x.", tests_text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


def test_doctor_shows_the_memory_and_disk_bounds():
    strong = json.loads(qflow("doctor", "--json", "--no-probes").stdout)
    weak = json.loads(qflow("doctor", "--json", "--no-probes", env={"QFLOW_SANDBOX_ISOLATION": "rlimits"}).stdout)
    for data in (strong, weak):
        assert set(data["bounds"]) == {"cgroup", "RLIMIT_AS", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "memfd_create", "disk"}
    assert "seccomp" in strong["bounds"]["memfd_create"]
    assert weak["bounds"]["memfd_create"].startswith("allowed")
    assert "unlinking" in weak["bounds"]["disk"] and "/tmp and /dev/shm are not counted" in weak["bounds"]["disk"]
    text = qflow("doctor", "--no-probes").stdout
    assert "memory and disk bounds:" in text and "RLIMIT_NOFILE" in text


def test_doctor_shows_the_warm_children_and_their_cost(tmp_path):
    data = json.loads(qflow("doctor", "--json", "--no-probes").stdout)
    warm = data["warm_pool"]
    assert warm["on"] and warm["per_kind"] >= 1 and warm["max_kinds"] >= 1
    [kind] = warm["kinds"]  # a run of the default settings: the program's process only
    assert kind["process"] == "program" and kind["isolation"] == data["isolation"]
    assert 1 <= kind["idle"] <= warm["per_kind"] and kind["processes"] >= kind["idle"]
    assert kind["memory_kb"] > 1024, kind  # an interpreter with the harness loaded is several MB
    text = qflow("doctor", "--no-probes").stdout
    assert "warm sandbox children: on" in text and "program process:" in text and "idle" in text
    # Off from the environment and from the config file alike.
    off = json.loads(qflow("doctor", "--json", "--no-probes", env={"QFLOW_SANDBOX_WARM": "0"}).stdout)
    assert off["warm_pool"]["on"] is False and off["warm_pool"]["kinds"] == []
    (tmp_path / "config.toml").write_text("[run]\nsandbox_warm = false\n")
    text = qflow("doctor", "--no-probes", env={"QFLOW_CONFIG_DIR": str(tmp_path)}).stdout
    assert "warm sandbox children: off" in text


def test_check_a_stdin_stdout_program_against_its_samples(tmp_path):
    """Input/Output blocks (a judge's samples) judge a stdin/stdout program as
    the bench judges one: each sample's output compared, the reason a program
    that never read its input failed said, setup and entry point refused."""
    samples = tmp_path / "samples.txt"
    samples.write_text("Input\n1 2\nOutput\n3\n\nInput\n5 7\nOutput\n12\n")
    prog = tmp_path / "p.py"
    prog.write_text("a, b = map(int, input().split())\nprint(a + b + (a == 5))\n")
    p = qflow("check", "--code", str(prog), "--tests", str(samples), "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["kind"] == "io" and (data["passed"], data["total"]) == (1, 2)
    assert [(r["input"], r["expected"], r["status"]) for r in data["results"]] == [
        ("1 2\n", "3\n", "pass"),
        ("5 7\n", "12\n", "fail"),
    ]
    (tmp_path / "none.py").write_text("def main():\n    print(sum(map(int, input().split())))\n")
    p = qflow("check", "--code", str(tmp_path / "none.py"), "--tests", str(samples))
    assert p.returncode == 0, p.stderr
    assert "0/2 passed" in p.stdout and "never read its input" in " ".join(p.stdout.split())
    p = qflow("check", "--code", str(prog), "--tests", str(samples), "--entry-point", "f")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "stdin/stdout" in p.stderr
